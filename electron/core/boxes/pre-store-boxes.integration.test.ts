import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { api, shOk, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';
import { storeSkipReason } from '../../../test-support/storage';
import { readStore } from '../../../test-support/volume-data';
import { ok } from '../../../test-support/volume-scenarios';

// A box made while no store driver worked (a core told to use btrfs on a data dir that is not
// btrfs) keeps /workspace in its root; once the store works it is served as before: snapshots,
// restores and forks carry /workspace in the root, and only new boxes get a store workspace.

const dataDir = tempDataDir();
const P = '/v1/projects/prestorebox';
let core: CoreProcess | null = null;

after(async () => {
  if (core) {
    for (const box of ['old', 'old-fork', 'new']) await api(core, 'DELETE', `${P}/boxes/${box}`);
    const snaps = ((await (await api(core, 'GET', `${P}/snapshots`)).json()) as { items: Snapshot[] }).items;
    for (const snap of snaps) await api(core, 'DELETE', `${P}/snapshots/${snap.id}`);
    await core.stop();
  }
  await removeInstanceLeftovers(instanceIdOf(dataDir));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const sh = (box: string, script: string): Promise<string> => shOk(core!, P, box, script);

const workspaceOf = (box: Box) => readStore(dataDir, 'SELECT workspace_item FROM boxes WHERE id = ?', box.id);

test('a box made before the store keeps /workspace in its root through snapshot, restore and fork; new boxes get a store workspace', async () => {
  core = await startCoreProcess({ dataDir, args: ['--storage-driver', 'btrfs'] });
  assert.notEqual(await storeSkipReason((m, p) => api(core!, m, p), 'btrfs'), null, 'no store works here');
  const old = await ok<Box>(await api(core, 'POST', `${P}/boxes`, { name: 'old' }), 201);
  assert.equal(workspaceOf(old), null);
  await sh('old', 'mkdir -p /workspace && echo root-kept > /workspace/f');
  await core.stop();

  core = await startCoreProcess({ dataDir });
  assert.equal(await storeSkipReason((m, p) => api(core!, m, p), 'copy'), null);
  assert.equal(await sh('old', 'pwd; cat /workspace/f'), '/\nroot-kept\n', 'served as before');
  const snap = await ok<Snapshot>(await api(core, 'POST', `${P}/boxes/old/snapshots`, { name: 's' }), 201);
  assert.equal(readStore(dataDir, 'SELECT item_id FROM snapshots WHERE id = ?', snap.id), null);
  await sh('old', 'echo changed > /workspace/f');
  await ok<Box>(await api(core, 'POST', `${P}/boxes/old/restore`, { snapshot_id: snap.id }));
  assert.equal(await sh('old', 'cat /workspace/f'), 'root-kept\n', 'the root brought /workspace back');
  const fork = await ok<Box>(await api(core, 'POST', `${P}/boxes`, { name: 'old-fork', fork: 'old' }), 201);
  assert.equal(workspaceOf(fork), null, "a fork of a box made before the store keeps its source's way");
  assert.equal(await sh('old-fork', 'cat /workspace/f'), 'root-kept\n');
  const fresh = await ok<Box>(await api(core, 'POST', `${P}/boxes`, { name: 'new' }), 201);
  assert.ok(workspaceOf(fresh), 'a new box has its workspace on the store');
  assert.equal(await sh('new', 'pwd'), '/workspace\n');
});
