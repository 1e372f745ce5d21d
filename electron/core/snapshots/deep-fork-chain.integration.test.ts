import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { containersOfBox, docker } from '../../../test-support/docker';
import { snapshotApi } from '../../../test-support/snapshots';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

// The engine refuses a container deeper than 125 layers; the core flattens a
// chain into one layer once a commit would pass 100. This chain goes 120
// deep, well past that point. Slow by nature: each step is a real commit.
const DEPTH = 120;

let t: TestCore;
let s: ReturnType<typeof snapshotApi>;

before(async () => {
  t = await startTestCore();
  s = snapshotApi(t.api, 'deep-fork');
});
after(async () => {
  const { items } = (await (await t.api('GET', `${s.boxes}?limit=500`)).json()) as { items: Box[] };
  for (const b of items) await s.remove(b.name);
  // Newest first: each snapshot's parent goes after its children.
  const snaps = ((await (await t.api('GET', '/v1/projects/deep-fork/snapshots')).json()) as { items: Snapshot[] })
    .items;
  for (const snap of snaps.reverse()) await t.api('DELETE', `/v1/projects/deep-fork/snapshots/${snap.id}`);
  await t.close();
});

async function layersOf(boxId: string): Promise<number> {
  const [c] = await containersOfBox(boxId);
  const image = (await docker.getContainer(c!.Id).inspect()).Image;
  return (await docker.getImage(image).inspect()).RootFS.Layers?.length ?? 0;
}

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
  const listing = await s.sh(`f${DEPTH}`, `ls /root | wc -l; cat /root/gen-0 /root/gen-100`);
  assert.equal(listing.stdout, `${DEPTH + 1}\n0\n100\n`);
  const layers = await layersOf(last.id);
  assert.ok(layers < 40, `flattened on the way (${layers} layers)`);
  process.stderr.write(`# fork-of-fork x${DEPTH}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});
