import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { DEEP_CHAIN as DEPTH, FLATTEN_AT, layersOf, withSnapshotCore } from '../../../test-support/snapshots';
import type { SnapshotApi } from '../../../test-support/snapshots';
import type { TestCore } from '../../../test-support/test-core';
import { MAX_LAYERS } from '../boxes/root-images';

let t: TestCore;
let s: SnapshotApi;
withSnapshotCore('deep-snap', (core, api) => ([t, s] = [core, api]), { maxImageLayers: FLATTEN_AT });

test(`a box snapshotted and restored ${DEPTH} times in a row still runs, with every file`, async () => {
  const started = Date.now();
  const box = await s.create('chain');
  // The chain is built on the stopped box (files go in through the engine's archive calls, and a
  // restore recreates the container without starting it): the layers are the same, the box's main
  // process is not restarted at every step. It runs again at the end, with every file.
  await s.expect(await t.api('POST', `${s.boxes}/chain/stop`), 200);
  let maxLayers = 0;
  for (let i = 0; i < DEPTH; i++) {
    // Something written each time: a commit with nothing new adds no layer.
    await s.expect(
      await t.api('PUT', `${s.boxes}/chain/files?path=/root/step-${i}`, `${i}\n`, {
        'content-type': 'application/octet-stream',
      }),
      200,
    );
    const snap = await s.snapshot('chain', `s${i}`);
    await s.restore('chain', snap.id);
    maxLayers = Math.max(maxLayers, await layersOf(box.id));
  }
  await s.expect(await t.api('POST', `${s.boxes}/chain/resume`), 200);
  const listing = await s.sh(
    'chain',
    `ls /root | wc -l; cat /root/step-0 /root/step-${FLATTEN_AT} /root/step-${DEPTH - 1}`,
  );
  assert.equal(listing.stdout, `${DEPTH}\n0\n${FLATTEN_AT}\n${DEPTH - 1}\n`);
  assert.ok(maxLayers >= FLATTEN_AT - 5, `the chain reached the flattening point (max ${maxLayers} layers)`);
  assert.ok(maxLayers <= FLATTEN_AT + 1, `the chain never went past it (max ${maxLayers} layers)`);
  assert.ok((await layersOf(box.id)) < FLATTEN_AT, 'it was flattened on the way');
  const got = (await (await t.api('GET', `${s.boxes}/chain`)).json()) as Box;
  assert.equal(got.status, 'running');
  assert.equal(
    got.origin,
    ((await (await t.api('GET', `${s.boxes}/chain/snapshots`)).json()) as { items: Snapshot[] }).items.find(
      (x) => x.name === `s${DEPTH - 1}`,
    )!.id,
  );
  process.stderr.write(`# snapshot+restore x${DEPTH}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});

test('the default flattening point leaves a margin below the engine refusing a container 125 layers deep', () => {
  // The chain above runs with a lower point; the default must keep a box (its image and its
  // writable layer) and a fork of it (one more commit) under overlay2's limit.
  assert.ok(MAX_LAYERS + 2 < 125, `MAX_LAYERS is ${MAX_LAYERS}`);
});
