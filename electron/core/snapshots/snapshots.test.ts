import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { startMemoryCore, type MemoryCore } from '../../../test-support/memory-core';

// Snapshots through the real HTTP API and a real SQLite file, on the in-memory engine.

let t: MemoryCore;
const P = '/v1/projects/snaps';

before(async () => {
  t = await startMemoryCore();
});
after(() => t.close());

async function expect<T>(res: Response, status: number): Promise<T> {
  assert.equal(res.status, status, await res.clone().text());
  return (status === 204 ? undefined : await res.json()) as T;
}

test('a new box with the name of a deleted one starts with no snapshots; the old ones stay the project’s, by box id', async () => {
  const first = await expect<Box>(await t.api('POST', `${P}/boxes`, { name: 'web' }), 201);
  const snap = await expect<Snapshot>(await t.api('POST', `${P}/boxes/web/snapshots`, { name: 'before' }), 201);
  assert.equal(snap.box_id, first.id);
  await expect(await t.api('DELETE', `${P}/boxes/web`), 204);

  const second = await expect<Box>(await t.api('POST', `${P}/boxes`, { name: 'web' }), 201);
  assert.notEqual(second.id, first.id);
  const own = await expect<{ items: Snapshot[] }>(await t.api('GET', `${P}/boxes/web/snapshots`), 200);
  assert.deepEqual(own.items, [], 'the deleted box’s snapshot is not the new box’s');
  const all = await expect<{ items: Snapshot[] }>(await t.api('GET', `${P}/snapshots`), 200);
  assert.deepEqual(
    all.items.map((s) => [s.name, s.box, s.box_id]),
    [['before', 'web', first.id]],
    'the project still lists it, with the id of the box it was taken of',
  );
});
