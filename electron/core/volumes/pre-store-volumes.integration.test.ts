import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { Volume, VolumeSnapshot } from '../../../shared/schemas/volumes';
import { api, shOk, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';
import { readStore } from '../../../test-support/volume-data';
import { ok } from '../../../test-support/volume-scenarios';

// A volume made while no store driver worked (a core told to use btrfs on a data dir that is not
// btrfs) is a plain engine volume; once the store works it is served as before: its snapshots and
// restores are helper copies, its engine volume stays. A clone of it is a store item.

const dataDir = tempDataDir();
const P = '/v1/projects/prestore';
let core: CoreProcess | null = null;

after(async () => {
  if (core) {
    for (const box of ['user', 'reader']) await api(core, 'DELETE', `${P}/boxes/${box}`);
    for (const vol of ['fresh', 'old']) await api(core, 'DELETE', `${P}/volumes/${vol}`);
    await core.stop();
  }
  await removeInstanceLeftovers(instanceIdOf(dataDir));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function storeDriver(c: CoreProcess): Promise<string | null> {
  for (;;) {
    const { storage } = (await (await api(c, 'GET', '/v1/system')).json()) as {
      storage: { driver: string | null; reason?: string };
    };
    if (storage.driver || storage.reason !== 'starting') return storage.driver;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const sh = (box: string, script: string): Promise<string> => shOk(core!, P, box, script);

const itemOf = (id: string) => readStore(dataDir, 'SELECT item_id FROM volumes WHERE id = ?', id);

test('a volume made before the store keeps its engine volume; snapshot and restore work as before; a clone is a store item', async (ctx) => {
  core = await startCoreProcess({ dataDir, args: ['--storage-driver', 'btrfs'] });
  if ((await storeDriver(core)) !== null) return ctx.skip('the data dir is on btrfs here: the store started');
  const old = await ok<Volume>(await api(core, 'POST', `${P}/volumes`, { name: 'old' }), 201);
  assert.equal(itemOf(old.id), null, 'no store: a plain engine volume');
  const engineName = readStore(dataDir, 'SELECT engine_name FROM volumes WHERE id = ?', old.id) as string;
  assert.match(engineName, /^boxdesk-prestore-old-/);
  await ok(await api(core, 'POST', `${P}/boxes`, { name: 'user', data_mounts: [{ name: 'old', path: '/data' }] }), 201);
  await sh('user', 'echo one > /data/f');
  await core.stop();

  core = await startCoreProcess({ dataDir });
  assert.equal(await storeDriver(core), 'copy');
  assert.equal(await sh('user', 'cat /data/f'), 'one\n');
  const snap = await ok<VolumeSnapshot>(await api(core, 'POST', `${P}/volumes/old/snapshots`), 201);
  assert.equal(readStore(dataDir, 'SELECT item_id FROM volume_snapshots WHERE id = ?', snap.id), null);
  assert.equal(snap.exclusive_bytes, null, 'measured by a helper, as before');
  await sh('user', 'echo two > /data/f');
  await ok(await api(core, 'POST', `${P}/boxes/user/stop`));
  await ok<Volume>(await api(core, 'POST', `${P}/volumes/old/restore`, { snapshot_id: snap.id }));
  assert.equal(itemOf(old.id), null, 'still a plain engine volume after a restore');
  await ok(await api(core, 'POST', `${P}/boxes/user/resume`));
  assert.equal(await sh('user', 'cat /data/f'), 'one\n');

  const fresh = await ok<Volume>(await api(core, 'POST', `${P}/volumes`, { name: 'fresh', from_volume: 'old' }), 201);
  assert.ok(itemOf(fresh.id), 'a clone is made on the store');
  await ok(
    await api(core, 'POST', `${P}/boxes`, { name: 'reader', data_mounts: [{ name: 'fresh', path: '/in' }] }),
    201,
  );
  assert.equal(await sh('reader', 'cat /in/f'), 'one\n');
  assert.equal((await api(core, 'DELETE', `${P}/volumes/old/snapshots/${snap.id}`)).status, 204);
});
