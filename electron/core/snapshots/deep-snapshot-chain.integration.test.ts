import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { DEEP_CHAIN as DEPTH, layersOf, type SnapshotApi, withSnapshotCore } from '../../../test-support/snapshots';
import type { TestCore } from '../../../test-support/test-core';

let t: TestCore;
let s: SnapshotApi;
withSnapshotCore('deep-snap', (core, api) => ([t, s] = [core, api]));

test(`a box snapshotted and restored ${DEPTH} times in a row still runs, with every file`, async () => {
  const started = Date.now();
  const box = await s.create('chain');
  // The chain is built on the stopped box (files go in through the engine's archive calls, and a
  // restore recreates the container without starting it): the layers are the same, the box's main
  // process is not restarted 120 times. It runs again at the end, with every file.
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
  const listing = await s.sh('chain', `ls /root | wc -l; cat /root/step-0 /root/step-100 /root/step-${DEPTH - 1}`);
  assert.equal(listing.stdout, `${DEPTH}\n0\n100\n${DEPTH - 1}\n`);
  assert.ok(maxLayers >= 95, `the chain reached the flattening point (max ${maxLayers} layers)`);
  assert.ok(maxLayers <= 101, `the chain never went past it (max ${maxLayers} layers)`);
  assert.ok((await layersOf(box.id)) < 40, 'it was flattened on the way');
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
