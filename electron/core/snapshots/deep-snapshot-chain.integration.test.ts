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
  s = snapshotApi(t.api, 'deep-snap');
});
after(async () => {
  const { items } = (await (await t.api('GET', `${s.boxes}?limit=500`)).json()) as { items: Box[] };
  for (const b of items) await s.remove(b.name);
  // Newest first: each snapshot's parent goes after its children.
  const snaps = ((await (await t.api('GET', '/v1/projects/deep-snap/snapshots')).json()) as { items: Snapshot[] })
    .items;
  for (const snap of snaps.reverse()) await t.api('DELETE', `/v1/projects/deep-snap/snapshots/${snap.id}`);
  await t.close();
});

async function layersOf(boxId: string): Promise<number> {
  const [c] = await containersOfBox(boxId);
  const image = (await docker.getContainer(c!.Id).inspect()).Image;
  return (await docker.getImage(image).inspect()).RootFS.Layers?.length ?? 0;
}

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
