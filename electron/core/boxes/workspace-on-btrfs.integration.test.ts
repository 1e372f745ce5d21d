import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';
import { snapshotApi, type SnapshotApi } from '../../../test-support/snapshots';
import { missingFor, storeSkipReason } from '../../../test-support/storage';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { readStore } from '../../../test-support/volume-data';

// A box's /workspace on the loop-btrfs store (the suite's cores run on the copy store): an item
// of its own, snapshotted with the root, cloned for forks and restores, capped at storage_gb.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const project = `wb${Date.now().toString(36)}`;
let t: TestCore | null = null;
let s: SnapshotApi;
let skip: string | null = missingFor('loop-btrfs');

before(async () => {
  if (skip) return;
  t = await startTestCore({ args: ['--storage-driver', 'loop-btrfs'] });
  s = snapshotApi(t.api, project);
  skip = await storeSkipReason(t.api, 'loop-btrfs');
});

after(async () => {
  if (!t) return;
  for (const box of ['src', 'dst', 'filler', 'bystander']) await s.remove(box);
  const snaps = ((await (await t.api('GET', `/v1/projects/${project}/snapshots`)).json()) as { items: Snapshot[] })
    .items;
  for (const snap of snaps.reverse()) await t.api('DELETE', `/v1/projects/${project}/snapshots/${snap.id}`);
  const instance = instanceIdOf(t.dataDir);
  await t.close();
  await removeInstanceLeftovers(instance);
});

async function sh(box: string, script: string): Promise<string> {
  const r = await s.sh(box, script);
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

const itemsOf = (owner: string): number =>
  readStore(t!.dataDir, "SELECT count(*) FROM storage_items WHERE owner = ? AND status = 'ready'", owner) as number;
const workspaceOf = (box: Box): string =>
  readStore(t!.dataDir, 'SELECT workspace_item FROM boxes WHERE id = ?', box.id) as string;

test('/workspace is a store item where exec starts; a fork clones it and both sides write apart; a snapshot shares its blocks', async (ctx) => {
  if (skip) return ctx.skip(skip);
  const src = await s.create('src', { config: { storage_gb: 1 } });
  assert.equal(src.storage_enforced, true, "storage_gb is the workspace's quota");
  assert.ok(workspaceOf(src), 'the box names its workspace item');
  assert.equal(await sh('src', 'pwd'), '/workspace\n');
  await sh('src', 'dd if=/dev/urandom of=blob bs=1M count=64 2>/dev/null && echo before > note && sync');

  const dst = await s.create('dst', { fork: 'src' });
  assert.notEqual(workspaceOf(dst), workspaceOf(src));
  assert.equal(dst.storage_enforced, true, 'the fork keeps the quota');
  await sh('src', 'echo from-src > note && echo s > only-src');
  await sh('dst', 'echo from-dst > note && echo d > only-dst');
  assert.equal(await sh('src', 'cat note; ls'), 'from-src\nblob\nnote\nonly-src\n');
  assert.equal(await sh('dst', 'cat note; ls'), 'from-dst\nblob\nnote\nonly-dst\n');

  const snap = await s.snapshot('src', 'first');
  assert.ok(snap.size_bytes >= 64 * MiB, `the snapshot refers to the workspace (${snap.size_bytes})`);
  assert.ok(
    snap.exclusive_bytes !== null && snap.exclusive_bytes! < 8 * MiB,
    `shared blocks are not the snapshot's own (${snap.exclusive_bytes})`,
  );
  const measured = (await (await t!.api('GET', `${s.boxes}/src`)).json()) as Box;
  assert.ok(measured.size_bytes! >= 64 * MiB, `the box's size (${measured.size_bytes})`);
  assert.equal(typeof measured.exclusive_bytes, 'number');
});

test('a restore brings /workspace back as it was at the snapshot; the replaced workspace is freed', async (ctx) => {
  if (skip) return ctx.skip(skip);
  const snap = ((await (await t!.api('GET', `${s.boxes}/src/snapshots`)).json()) as { items: Snapshot[] }).items[0]!;
  const before = await sh('src', 'md5sum blob');
  await sh('src', 'rm blob && echo after > note && echo later > added');
  const src = await s.restore('src', snap.id);
  assert.equal(src.status, 'running');
  assert.equal(await sh('src', 'md5sum blob'), before);
  assert.equal(await sh('src', 'cat note; ls'), 'from-src\nblob\nnote\nonly-src\n');
  assert.equal(itemsOf(`box:${src.id}`), 1, 'one workspace item: the replaced one went');
  assert.equal(src.storage_enforced, true, 'the restored workspace keeps the quota');
});

test('a write past storage_gb fails inside the box only; the box, the core and other boxes carry on', async (ctx) => {
  if (skip) return ctx.skip(skip);
  await s.create('filler', { config: { storage_gb: 1 } });
  await s.create('bystander');
  const past = await s.sh('filler', 'dd if=/dev/zero of=big bs=1M count=1100 && sync');
  assert.notEqual(past.exit_code, 0, 'the write past the quota fails');
  assert.match(past.stderr, /Disk quota exceeded|No space left on device/);
  const written = Number(await sh('filler', 'stat -c %s big'));
  assert.ok(written <= GiB, `wrote ${written} bytes past a 1 GiB quota`);
  assert.equal(await sh('filler', 'rm big && echo fine > after && cat after'), 'fine\n');
  assert.equal(await sh('bystander', 'dd if=/dev/zero of=f bs=1M count=16 2>/dev/null && echo ok'), 'ok\n');
  // A later storage_gb moves the quota.
  const res = await t!.api('PUT', `${s.boxes}/filler`, { config: { storage_gb: 2 } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(((await res.json()) as Box).storage_enforced, true);
  const filler = (await (await t!.api('GET', `${s.boxes}/filler`)).json()) as Box;
  const quota = readStore(t!.dataDir, 'SELECT quota_bytes FROM storage_items WHERE id = ?', workspaceOf(filler));
  assert.equal(quota, 2 * GiB);
});

test("deleting a box and a snapshot frees their items; a snapshot outlives its box's workspace", async (ctx) => {
  if (skip) return ctx.skip(skip);
  const dst = (await (await t!.api('GET', `${s.boxes}/dst`)).json()) as Box;
  const snap = await s.snapshot('dst', 'kept');
  await s.remove('dst');
  assert.equal(itemsOf(`box:${dst.id}`), 0, "the box's workspace went");
  assert.equal(itemsOf(`box-snapshot:${snap.id}`), 1, 'its snapshot keeps its own');
  const fork = await s.create('dst', { fork: snap.id });
  assert.equal(await sh('dst', 'cat note'), 'from-dst\n');
  await s.remove('dst');
  assert.equal(itemsOf(`box:${fork.id}`), 0);
  assert.equal((await t!.api('DELETE', `/v1/projects/${project}/snapshots/${snap.id}`)).status, 204);
  assert.equal(itemsOf(`box-snapshot:${snap.id}`), 0, "the snapshot's workspace went");
});
