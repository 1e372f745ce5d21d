import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Volume, VolumeBackup, VolumeSnapshot } from '../../../shared/schemas/volumes';
import { removeInstanceLeftovers, instanceIdOf } from '../../../test-support/reliability';
import { missingFor } from '../../../test-support/storage';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { backupSettled, readStore } from '../../../test-support/volume-data';

// A volume's snapshot, restore and clones on the loop-btrfs store (the suite's cores run on the
// copy store): each is a btrfs subvolume snapshot of the volume's item, sharing its blocks.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const project = `vb${Date.now().toString(36)}`;
const P = `/v1/projects/${project}`;
let t: TestCore | null = null;
let skip: string | null = missingFor('loop-btrfs');

before(async () => {
  if (skip) return;
  t = await startTestCore({ args: ['--storage-driver', 'loop-btrfs'] });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { storage } = (await (await t.api('GET', '/v1/system')).json()) as {
      storage: { driver: string | null; reason?: string };
    };
    if (storage.driver) {
      if (storage.driver !== 'loop-btrfs') skip = `the store fell back to ${storage.driver}: ${storage.reason ?? ''}`;
      break;
    }
    if (storage.reason !== 'starting' || Date.now() > deadline) {
      skip = `the loop-btrfs store did not start here: ${storage.reason ?? 'no reason given'}`;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
});

after(async () => {
  if (!t) return;
  for (const box of ['user', 'reader', 'filler']) await t.api('DELETE', `${P}/boxes/${box}`);
  for (const vol of ['copy', 'live', 'data', 'capped', 'capped-copy', 'free'])
    await t.api('DELETE', `${P}/volumes/${vol}`);
  const instance = instanceIdOf(t.dataDir);
  await t.close();
  await removeInstanceLeftovers(instance);
});

async function ok<T>(res: Response, status = 200): Promise<T> {
  assert.equal(res.status, status, await res.clone().text());
  return (await res.json()) as T;
}

async function run(box: string, script: string): Promise<{ exit_code: number; stdout: string; stderr: string }> {
  return ok(await t!.api('POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] }));
}

async function sh(box: string, script: string): Promise<string> {
  const r = await run(box, script);
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

/** The quota the store records on a volume's item (null: none). */
function quotaOf(volumeId: string): number | null {
  return readStore(
    t!.dataDir,
    'SELECT s.quota_bytes FROM storage_items s JOIN volumes v ON v.item_id = s.id WHERE v.id = ?',
    volumeId,
  ) as number | null;
}

/** The store's record of a volume's or a snapshot's item: `kind parent driver`. */
function itemOf(table: 'volumes' | 'volume_snapshots', id: string): { id: string; record: string } {
  const itemId = readStore(t!.dataDir, `SELECT item_id FROM ${table} WHERE id = ?`, id) as string | null;
  assert.ok(itemId, `the ${table} row ${id} names a store item`);
  const record = readStore(
    t!.dataDir,
    "SELECT kind || ' ' || coalesce(parent_id, '-') || ' ' || driver || ' ' || status FROM storage_items WHERE id = ?",
    itemId,
  ) as string;
  return { id: itemId, record };
}

test('on loop-btrfs a volume snapshot, restore and clones are subvolume snapshots: no space taken, data round-trips', async (ctx) => {
  if (skip) return ctx.skip(skip);
  const vol = await ok<Volume>(await t!.api('POST', `${P}/volumes`, { name: 'data' }), 201);
  const volItem = itemOf('volumes', vol.id);
  assert.equal(volItem.record, 'volume - loop-btrfs ready');
  await ok(await t!.api('POST', `${P}/boxes`, { name: 'user', data_mounts: [{ name: 'data', path: '/data' }] }), 201);
  await sh('user', 'head -c 8388608 /dev/urandom > /data/blob && echo one > /data/note && sync');
  const sum = await sh('user', 'md5sum /data/blob');

  const snap = await ok<VolumeSnapshot>(await t!.api('POST', `${P}/volumes/data/snapshots`), 201);
  assert.equal(snap.method, 'reflink', 'copy-on-write');
  assert.equal(itemOf('volume_snapshots', snap.id).record, `snapshot ${volItem.id} loop-btrfs ready`);
  assert.ok(snap.size_bytes >= 8 * MiB, `the snapshot refers to the volume's data (${snap.size_bytes})`);
  assert.ok(
    snap.exclusive_bytes !== null && snap.exclusive_bytes !== undefined && snap.exclusive_bytes < MiB,
    `a snapshot takes no space of its own until the volume diverges (exclusive ${snap.exclusive_bytes})`,
  );

  await sh('user', 'echo two > /data/note && rm /data/blob && echo new > /data/added');
  await ok(await t!.api('POST', `${P}/boxes/user/stop`));
  const restored = await ok<Volume>(await t!.api('POST', `${P}/volumes/data/restore`, { snapshot_id: snap.id }));
  assert.equal(itemOf('volumes', vol.id).id, volItem.id, 'restored in place: the same item, swapped in one step');
  assert.ok(restored.size_bytes >= 8 * MiB);
  await ok(await t!.api('POST', `${P}/boxes/user/resume`));
  assert.equal(await sh('user', 'cat /data/note; test -e /data/added && echo added || echo none'), 'one\nnone\n');
  assert.equal(await sh('user', 'md5sum /data/blob'), sum);

  const copy = await ok<Volume>(await t!.api('POST', `${P}/volumes`, { name: 'copy', from_snapshot: snap.id }), 201);
  const snapItem = itemOf('volume_snapshots', snap.id).id;
  assert.equal(itemOf('volumes', copy.id).record, `volume ${snapItem} loop-btrfs ready`);
  assert.ok(
    copy.exclusive_bytes !== null && copy.exclusive_bytes! < MiB,
    `a clone shares its blocks (${copy.exclusive_bytes})`,
  );
  const live = await ok<Volume>(await t!.api('POST', `${P}/volumes`, { name: 'live', from_volume: 'data' }), 201);
  assert.equal(itemOf('volumes', live.id).record, `volume ${volItem.id} loop-btrfs ready`);
  await ok(
    await t!.api('POST', `${P}/boxes`, {
      name: 'reader',
      data_mounts: [
        { name: 'copy', path: '/copy' },
        { name: 'live', path: '/live', read_only: true },
      ],
    }),
    201,
  );
  assert.equal(await sh('reader', 'md5sum /copy/blob /live/blob | cut -d" " -f1 | uniq'), `${sum.split(' ')[0]}\n`);
  await sh('reader', 'echo mine > /copy/note');
  assert.equal(await sh('user', 'cat /data/note'), 'one\n', 'a clone diverges on its own');

  assert.equal((await t!.api('DELETE', `${P}/volumes/data/snapshots/${snap.id}`)).status, 204);
  assert.equal(readStore(t!.dataDir, 'SELECT count(*) FROM storage_items WHERE id = ?', snapItem), 0);
  assert.equal(await sh('reader', 'cat /copy/note'), 'mine\n', 'a clone outlives the snapshot it came from');
});

test("on loop-btrfs a volume's size_gb is its item's quota: a write past it fails in the box only; clones and restores keep it", async (ctx) => {
  if (skip) return ctx.skip(skip);
  const capped = await ok<Volume>(await t!.api('POST', `${P}/volumes`, { name: 'capped', size_gb: 1 }), 201);
  assert.equal(capped.size_enforced, true);
  assert.equal(quotaOf(capped.id), GiB);
  const free = await ok<Volume>(await t!.api('POST', `${P}/volumes`, { name: 'free' }), 201);
  assert.equal(free.size_enforced, false, 'no size_gb: no quota');
  const mounts = [
    { name: 'capped', path: '/data' },
    { name: 'free', path: '/free' },
  ];
  await ok(await t!.api('POST', `${P}/boxes`, { name: 'filler', data_mounts: mounts }), 201);
  await sh('filler', 'echo small > /data/small && sync');

  const past = await run('filler', 'dd if=/dev/zero of=/data/big bs=1M count=1100 && sync');
  assert.notEqual(past.exit_code, 0, `a write past 1 GiB fails in the box: ${past.stderr}`);
  assert.match(past.stderr, /Disk quota exceeded|No space left on device/);
  const written = Number(await sh('filler', 'stat -c %s /data/big'));
  assert.ok(written <= GiB, `wrote ${written} bytes past a 1 GiB quota`);
  // Nothing else notices: the core answers, the box and its other volume take writes, the small file is whole.
  assert.equal((await t!.api('GET', '/v1/system')).status, 200);
  await sh('filler', 'head -c 67108864 /dev/zero > /free/blob && sync');
  assert.equal(await sh('filler', 'cat /data/small; stat -c %s /free/blob'), `small\n${64 * MiB}\n`);
  assert.equal((await ok<Volume>(await t!.api('GET', `${P}/volumes/free`))).size_enforced, false);
  await sh('filler', 'rm /data/big && sync');

  const copy = await ok<Volume>(
    await t!.api('POST', `${P}/volumes`, { name: 'capped-copy', from_volume: 'capped', size_gb: 1 }),
    201,
  );
  assert.equal(copy.size_enforced, true, 'a clone is capped at its own size_gb');
  assert.equal(quotaOf(copy.id), GiB);

  // A restore from a backup fills a new item beside and swaps it in: it takes the volume's quota.
  const started = await ok<VolumeBackup>(await t!.api('POST', `${P}/volumes/capped/backups`), 202);
  assert.equal((await backupSettled(t!.api, project, 'capped', started.id)).status, 'done');
  const before = itemOf('volumes', capped.id).id;
  await ok(await t!.api('POST', `${P}/boxes/filler/stop`));
  const restored = await ok<Volume>(await t!.api('POST', `${P}/volumes/capped/restore`, { backup_id: started.id }));
  assert.notEqual(itemOf('volumes', capped.id).id, before, 'a new item swapped in');
  assert.equal(restored.size_enforced, true);
  assert.equal(quotaOf(capped.id), GiB);
  await ok(await t!.api('POST', `${P}/boxes/filler/resume`));
  assert.equal(await sh('filler', 'cat /data/small'), 'small\n');
  const again = await run('filler', 'dd if=/dev/zero of=/data/big bs=1M count=1100 && sync');
  assert.notEqual(again.exit_code, 0, 'the restored volume is still capped');
});
