import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { DEEP_CHAIN as DEPTH, FLATTEN_AT, layersOf, withSnapshotCore } from '../../../test-support/snapshots';
import type { SnapshotApi } from '../../../test-support/snapshots';
import type { TestCore } from '../../../test-support/test-core';

let t: TestCore;
let s: SnapshotApi;
withSnapshotCore('deep-fork', (core, api) => ([t, s] = [core, api]), { maxImageLayers: FLATTEN_AT });

test(`a fork of a fork of … ${DEPTH} deep still runs, with every ancestor's file`, async () => {
  const started = Date.now();
  await s.create('f0');
  await s.sh('f0', 'echo 0 > /root/gen-0');
  let removing: Promise<unknown> = Promise.resolve();
  for (let i = 1; i <= DEPTH; i++) {
    await s.create(`f${i}`, { fork: `f${i - 1}` });
    // Something written each time: a commit with nothing new adds no layer.
    await s.sh(`f${i}`, `echo ${i} > /root/gen-${i}`);
    // Only the newest boxes live (the chain is in the images); the previous one goes while the next fork is made.
    await removing;
    removing = s.remove(`f${i - 1}`);
  }
  await removing;
  const last = (await (await t.api('GET', `${s.boxes}/f${DEPTH}`)).json()) as Box;
  assert.equal(last.status, 'running');
  const listing = await s.sh(`f${DEPTH}`, `ls /root | wc -l; cat /root/gen-0 /root/gen-${FLATTEN_AT}`);
  assert.equal(listing.stdout, `${DEPTH + 1}\n0\n${FLATTEN_AT}\n`);
  const layers = await layersOf(last.id);
  assert.ok(layers < FLATTEN_AT, `flattened on the way (${layers} layers)`);
  process.stderr.write(`# fork-of-fork x${DEPTH}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});
