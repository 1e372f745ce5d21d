import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { Box } from '../../../shared/schemas/box';
import type { Volume, VolumeBackup, VolumeSnapshot } from '../../../shared/schemas/volumes';
import { docker, waitFor } from '../../../test-support/docker';
import { SseClient } from '../../../test-support/sse';
import { withTestCore, type TestCore } from '../../../test-support/test-core';
import { deleteBoxesAndVolumes, ok } from '../../../test-support/volume-scenarios';

// Snapshots, backups, restore and clones of a volume against the real engine.

let t: TestCore;
const project = `vc${Date.now().toString(36)}`;
const P = `/v1/projects/${project}`;

withTestCore(
  (core) => (t = core),
  (core) => deleteBoxesAndVolumes(core, P),
);

async function sh(box: string, script: string): Promise<string> {
  const r = await ok<{ exit_code: number; stdout: string; stderr: string }>(
    await t.api('POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] }),
  );
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

async function backupDone(volume: string, id: string): Promise<VolumeBackup> {
  return waitFor(
    async () => {
      const b = await ok<VolumeBackup>(await t.api('GET', `${P}/volumes/${volume}/backups/${id}`));
      return b.status === 'pending' ? null : b;
    },
    60_000,
    `backup ${id}`,
  );
}

test('snapshot, change, restore: the data is back; restore is a 409 while a running box mounts the volume', async () => {
  await ok(await t.api('POST', `${P}/volumes`, { name: 'snappy' }), 201);
  await ok(await t.api('POST', `${P}/boxes`, { name: 'user', data_mounts: [{ name: 'snappy', path: '/data' }] }), 201);
  await sh(
    'user',
    'mkdir -p /data/dir && echo one > /data/dir/file && ln -s dir/file /data/link && chmod 600 /data/dir/file',
  );
  const snap = await ok<VolumeSnapshot>(await t.api('POST', `${P}/volumes/snappy/snapshots`), 201);
  assert.match(snap.id, /^vsnap_/);
  assert.equal(snap.volume, 'snappy');
  // overlay2 on ext4 here: no reflinks; busybox cp has no --reflink either. Either way the answer is honest.
  assert.ok(['reflink', 'copy'].includes(snap.method));
  assert.ok(snap.size_bytes > 0);
  assert.equal((await ok<Box>(await t.api('GET', `${P}/boxes/user`))).status, 'running', 'paused only for the copy');
  const [engineSnap] = (await docker.listVolumes({ filters: { label: [`boxdesk.id=${snap.id}`] } })).Volumes;
  assert.equal(engineSnap?.Labels['boxdesk.role'], 'volume-snapshot');

  await sh('user', 'echo two > /data/dir/file && rm /data/link && echo new > /data/added');
  const busy = await t.api('POST', `${P}/volumes/snappy/restore`, { snapshot_id: snap.id });
  assert.equal(busy.status, 409);
  assert.match(((await busy.json()) as { detail: string }).detail, /user \(running\)/);
  assert.equal((await t.api('POST', `${P}/volumes/snappy/restore`, {})).status, 400);

  await ok(await t.api('POST', `${P}/boxes/user/stop`));
  await ok<Volume>(await t.api('POST', `${P}/volumes/snappy/restore`, { snapshot_id: snap.id }));
  await ok(await t.api('POST', `${P}/boxes/user/resume`));
  assert.equal(
    await sh(
      'user',
      'cat /data/dir/file; readlink /data/link; test -e /data/added && echo added || echo none; stat -c %a /data/dir/file',
    ),
    'one\ndir/file\nnone\n600\n',
  );

  const listed = await ok<{ items: VolumeSnapshot[] }>(await t.api('GET', `${P}/volumes/snappy/snapshots`));
  assert.deepEqual(
    listed.items.map((s) => s.id),
    [snap.id],
  );
  assert.equal((await t.api('DELETE', `${P}/volumes/snappy/snapshots/${snap.id}`)).status, 204);
  assert.equal((await docker.listVolumes({ filters: { label: [`boxdesk.id=${snap.id}`] } })).Volumes.length, 0);
  assert.equal((await t.api('POST', `${P}/volumes/snappy/restore`, { snapshot_id: snap.id })).status, 404);
});

test('a backup of a volume in use, downloaded and checked, restores into a clone; retention prunes the oldest', async () => {
  await ok(await t.api('POST', `${P}/volumes`, { name: 'precious', backup_retention: 2 }), 201);
  await ok(
    await t.api('POST', `${P}/boxes`, { name: 'producer', data_mounts: [{ name: 'precious', path: '/data' }] }),
    201,
  );
  await sh(
    'producer',
    'head -c 300000 /dev/urandom > /data/blob && mkdir /data/sub && echo text > /data/sub/t && (cd /data && md5sum blob > sum)',
  );
  const sse = new SseClient(`${t.url}/v1/events`, t.token);
  const started = await ok<VolumeBackup>(await t.api('POST', `${P}/volumes/precious/backups`), 202);
  assert.equal(started.status, 'pending');
  const done = await backupDone('precious', started.id);
  const backupEvent = (status: string) => (e: { event: string; data: string }) => {
    if (e.event !== 'volume.backup') return false;
    const data = (JSON.parse(e.data) as { data: { volume: string; backup: VolumeBackup } }).data;
    return data.volume === 'precious' && data.backup.id === started.id && data.backup.status === status;
  };
  await sse.waitFor(backupEvent('pending'));
  const doneEvent = JSON.parse((await sse.waitFor(backupEvent('done'))).data) as {
    project: string;
    data: { backup: VolumeBackup };
  };
  assert.equal(doneEvent.project, project);
  assert.equal(doneEvent.data.backup.sha256, done.sha256);
  sse.close();
  assert.equal(done.status, 'done', done.reason ?? '');
  assert.match(done.sha256!, /^[0-9a-f]{64}$/);
  const file = path.join(
    t.dataDir,
    'backups',
    (await ok<Volume>(await t.api('GET', `${P}/volumes/precious`))).id,
    `${done.id}.tar.gz`,
  );
  assert.equal(fs.statSync(file).size, done.size_bytes);

  const res = await t.api('GET', `${P}/volumes/precious/backups/${done.id}/download`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-length'), String(done.size_bytes));
  assert.equal(res.headers.get('x-checksum-sha256'), done.sha256);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(createHash('sha256').update(bytes).digest('hex'), done.sha256);
  const tar = gunzipSync(bytes);
  assert.ok(tar.includes(Buffer.from('./sub/t')), 'entries are relative to the volume root');

  const clone = await ok<Volume>(await t.api('POST', `${P}/volumes`, { name: 'restored', from_backup: done.id }), 201);
  assert.ok(clone.size_bytes >= 300000);
  await ok(
    await t.api('POST', `${P}/boxes`, {
      name: 'checker',
      data_mounts: [{ name: 'restored', path: '/r', read_only: true }],
    }),
    201,
  );
  assert.equal(await sh('checker', 'cd /r && md5sum -c sum >/dev/null && cat sub/t'), 'text\n');

  // Clone from the live volume and from a snapshot too.
  const fromVolume = await ok<Volume>(
    await t.api('POST', `${P}/volumes`, { name: 'copy-live', from_volume: 'precious' }),
    201,
  );
  assert.ok(fromVolume.size_bytes >= 300000);
  assert.equal(
    (await t.api('POST', `${P}/volumes`, { name: 'both', from_volume: 'precious', from_backup: done.id })).status,
    400,
  );
  assert.equal(
    (await t.api('POST', `${P}/volumes`, { name: 'ghost', from_snapshot: 'vsnap_aaaaaaaaaaaaaaaaaaaa' })).status,
    404,
  );
  assert.equal((await t.api('GET', `${P}/volumes/ghost`)).status, 404, 'a failed clone leaves nothing');

  // Two more backups: retention 2 keeps the newest two.
  const second = await backupDone(
    'precious',
    (await ok<VolumeBackup>(await t.api('POST', `${P}/volumes/precious/backups`), 202)).id,
  );
  const third = await backupDone(
    'precious',
    (await ok<VolumeBackup>(await t.api('POST', `${P}/volumes/precious/backups`), 202)).id,
  );
  const kept = await ok<{ items: VolumeBackup[] }>(await t.api('GET', `${P}/volumes/precious/backups`));
  assert.deepEqual(
    kept.items.map((b) => b.id),
    [second.id, third.id],
  );
  assert.equal(fs.existsSync(file), false, 'the oldest archive is gone');
  assert.equal((await t.api('GET', `${P}/volumes/precious/backups/${done.id}/download`)).status, 404);

  // Restore in place from a backup (the box stopped first).
  await sh('producer', 'rm -rf /data/*');
  await ok(await t.api('POST', `${P}/boxes/producer/stop`));
  await ok(await t.api('POST', `${P}/volumes/precious/restore`, { backup_id: third.id }));
  await ok(await t.api('POST', `${P}/boxes/producer/resume`));
  assert.equal(await sh('producer', 'cd /data && md5sum -c sum >/dev/null && cat sub/t'), 'text\n');

  const deletions = new SseClient(`${t.url}/v1/events`, t.token);
  assert.equal((await t.api('DELETE', `${P}/volumes/precious/backups/${second.id}`)).status, 204);
  const deleted = await deletions.waitFor((e) => e.event === 'volume.backup.deleted');
  deletions.close();
  assert.equal((JSON.parse(deleted.data) as { data: { backup: VolumeBackup } }).data.backup.id, second.id);
  assert.deepEqual(
    (await ok<{ items: VolumeBackup[] }>(await t.api('GET', `${P}/volumes/precious/backups`))).items.map((b) => b.id),
    [third.id],
  );
});
