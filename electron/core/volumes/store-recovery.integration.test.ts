import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Volume } from '../../../shared/schemas/volumes';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { docker } from '../../../test-support/docker';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';
import { openStorage } from '../../../test-support/storage';
import { readStore } from '../../../test-support/volume-data';
import { STORE_ID_LABEL } from '../storage/port';

// What a kill -9 between the store and the volumes' records leaves, settled at the next start:
// no store item that no volume record names, no volume record without its item.

const dataDir = tempDataDir();
const P = '/v1/projects/storerec';
let core: CoreProcess | null = null;

after(async () => {
  if (core) {
    await api(core, 'DELETE', `${P}/boxes/keeper`);
    await api(core, 'DELETE', `${P}/volumes/kept`);
    await core.stop();
  }
  await removeInstanceLeftovers(instanceIdOf(dataDir));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function engineVolumesOf(item: string): Promise<string[]> {
  const found = await docker.listVolumes({ filters: { label: [`${STORE_ID_LABEL}=${item}`] } });
  return (found.Volumes ?? []).map((v) => v.Name);
}

const itemCount = (id: string) => readStore(dataDir, 'SELECT count(*) FROM storage_items WHERE id = ?', id);

test('at start a volume cut short before its record was ready goes with its item, an item no volume names goes, a ready volume keeps its data', async () => {
  core = await startCoreProcess({ dataDir });
  const instance = instanceIdOf(dataDir);
  const kept = (await (await api(core, 'POST', `${P}/volumes`, { name: 'kept' })).json()) as Volume;
  const keptItem = readStore(dataDir, 'SELECT item_id FROM volumes WHERE id = ?', kept.id) as string;
  assert.ok(keptItem, 'a new volume is a store item');
  assert.equal(
    (await api(core, 'POST', `${P}/boxes`, { name: 'keeper', data_mounts: [{ name: 'kept', path: '/k' }] })).status,
    201,
  );
  const write = await api(core, 'POST', `${P}/boxes/keeper/exec`, { command: ['sh', '-c', 'echo safe > /k/f'] });
  assert.equal(write.status, 200);
  const cut = (await (await api(core, 'POST', `${P}/volumes`, { name: 'cut' })).json()) as Volume;
  const cutItem = readStore(dataDir, 'SELECT item_id FROM volumes WHERE id = ?', cut.id) as string;
  await core.stop();

  // A crash after the store made the item, before the volume's record said so.
  const db = new Database(path.join(dataDir, 'boxdesk.db'));
  db.prepare("UPDATE volumes SET status = 'creating' WHERE id = ?").run(cut.id);
  db.close();
  // A crash after the store made an item, before any volume record named it.
  const opened = openStorage(dataDir, instance, 'copy');
  await opened.storage.start();
  const stray = await opened.storage.create({ owner: 'volume:vol_neverrecordedneverrecor' });
  await opened.storage.stop();
  opened.db.close();
  assert.equal(itemCount(stray.id), 1);
  assert.equal((await engineVolumesOf(stray.id)).length, 1);

  core = await startCoreProcess({ dataDir });
  assert.equal(readStore(dataDir, 'SELECT count(*) FROM volumes WHERE id = ?', cut.id), 0, 'the cut-short record');
  for (const item of [cutItem, stray.id]) {
    assert.equal(itemCount(item), 0, `item ${item} no record names`);
    assert.deepEqual(await engineVolumesOf(item), [], `the engine volume of item ${item}`);
  }
  assert.equal(itemCount(keptItem), 1);
  const read = await api(core, 'POST', `${P}/boxes/keeper/exec`, { command: ['cat', '/k/f'] });
  assert.equal(((await read.json()) as { stdout: string }).stdout, 'safe\n');
  assert.equal((await api(core, 'POST', `${P}/volumes`, { name: 'cut' })).status, 201, 'its name is free again');
  assert.equal((await api(core, 'DELETE', `${P}/volumes/cut`)).status, 204);
});
