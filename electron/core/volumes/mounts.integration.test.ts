import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Volume } from '../../../shared/schemas/volumes';
import { docker } from '../../../test-support/docker';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

// Volumes mounted into boxes against the real engine: shared data, read-only
// mounts, data that outlives its boxes, attach/detach keeping a box's root.

let t: TestCore;
const P = `/v1/projects/vm${Date.now().toString(36)}`;

before(async () => {
  t = await startTestCore();
});
after(async () => {
  const boxes = ((await (await t.api('GET', `${P}/boxes`)).json()) as { items: Box[] }).items;
  for (const b of boxes) await t.api('DELETE', `${P}/boxes/${b.name}`);
  const vols = ((await (await t.api('GET', `${P}/volumes`)).json()) as { items: Volume[] }).items;
  for (const v of vols) await t.api('DELETE', `${P}/volumes/${v.name}`);
  await t.close();
});

async function ok<T>(res: Response, status = 200): Promise<T> {
  assert.equal(res.status, status, await res.clone().text());
  return (await res.json()) as T;
}

async function sh(box: string, script: string): Promise<{ exit_code: number; stdout: string; stderr: string }> {
  return ok(await t.api('POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] }));
}

test('data written through one box is read from another, read-only refuses writes, and it survives deleting the box', async () => {
  const vol = await ok<Volume>(await t.api('POST', `${P}/volumes`, { name: 'shared', size_gb: 2 }), 201);
  assert.equal(vol.size_gb, 2);
  assert.equal(vol.size_enforced, false);
  assert.equal(vol.backup_retention, 7);
  assert.deepEqual(vol.mounts, []);
  const [engineVolume] = (await docker.listVolumes({ filters: { label: [`boxdesk.id=${vol.id}`] } })).Volumes;
  assert.equal(engineVolume?.Labels['boxdesk.volume'], 'shared');
  assert.equal(engineVolume?.Labels['boxdesk.project'], P.split('/').pop());

  const writer = await ok<Box>(
    await t.api('POST', `${P}/boxes`, { name: 'writer', data_mounts: [{ name: 'shared', path: '/data' }] }),
    201,
  );
  assert.deepEqual(writer.data_mounts, [{ name: 'shared', path: '/data', read_only: false }]);
  assert.equal((await sh('writer', 'echo hello > /data/greeting && cat /data/greeting')).stdout, 'hello\n');

  await ok<Box>(
    await t.api('POST', `${P}/boxes`, {
      name: 'reader',
      data_mounts: [{ name: 'shared', path: '/mnt/in/', read_only: true }],
    }),
    201,
  );
  assert.equal((await sh('reader', 'cat /mnt/in/greeting')).stdout, 'hello\n');
  const refused = await sh('reader', 'echo x > /mnt/in/other');
  assert.notEqual(refused.exit_code, 0);
  assert.match(refused.stderr, /read-only/i);

  const listed = await ok<Volume>(await t.api('GET', `${P}/volumes/shared`));
  assert.deepEqual(listed.mounts, [
    { box: 'reader', path: '/mnt/in', read_only: true },
    { box: 'writer', path: '/data', read_only: false },
  ]);

  const busy = await t.api('DELETE', `${P}/volumes/shared`);
  assert.equal(busy.status, 409);
  assert.match(((await busy.json()) as { detail: string }).detail, /"reader", "writer"/);

  assert.equal((await t.api('DELETE', `${P}/boxes/writer`)).status, 204);
  assert.equal((await sh('reader', 'cat /mnt/in/greeting')).stdout, 'hello\n');
  await ok<Box>(
    await t.api('POST', `${P}/boxes`, { name: 'writer2', data_mounts: [{ name: 'shared', path: '/data' }] }),
    201,
  );
  assert.equal((await sh('writer2', 'cat /data/greeting')).stdout, 'hello\n');
});

test('a mount of an unknown volume is a 404 and bad mount paths are 400s, nothing created', async () => {
  const missing = await t.api('POST', `${P}/boxes`, {
    name: 'nomount',
    data_mounts: [{ name: 'nope', path: '/data' }],
  });
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { detail: string }).detail, /volume "nope" not found/);
  await ok(await t.api('POST', `${P}/volumes`, { name: 'paths' }), 201);
  for (const data_mounts of [
    [{ name: 'paths', path: '/' }],
    [{ name: 'paths', path: '/proc/x' }],
    [{ name: 'paths', path: '/a/../b' }],
    [
      { name: 'paths', path: '/a' },
      { name: 'paths', path: '/b' },
    ],
  ]) {
    const res = await t.api('POST', `${P}/boxes`, { name: 'nomount', data_mounts });
    assert.equal(res.status, 400, JSON.stringify(data_mounts));
  }
  assert.equal((await t.api('GET', `${P}/boxes/nomount`)).status, 404);
  assert.equal((await t.api('POST', `${P}/volumes`, { name: 'paths' })).status, 409);
  assert.equal((await t.api('POST', `${P}/volumes`, { name: 'Bad_Name' })).status, 400);
});

test('attach to a running box restarts it with every root file kept; detach takes the mount away', async () => {
  await ok(await t.api('POST', `${P}/volumes`, { name: 'late' }), 201);
  await ok<Box>(await t.api('POST', `${P}/boxes`, { name: 'host' }), 201);
  await sh(
    'host',
    'mkdir -p /root/work && head -c 100000 /dev/urandom > /root/work/blob && md5sum /root/work/blob > /root/sum && echo data > /etc/marker',
  );
  const sum = (await sh('host', 'cat /root/sum')).stdout;

  const attached = await ok<Volume>(
    await t.api('POST', `${P}/volumes/late/attach`, { box: 'host', path: '/srv/late' }),
  );
  assert.deepEqual(attached.mounts, [{ box: 'host', path: '/srv/late', read_only: false }]);
  const box = await ok<Box>(await t.api('GET', `${P}/boxes/host`));
  assert.equal(box.status, 'running');
  assert.deepEqual(box.data_mounts, [{ name: 'late', path: '/srv/late', read_only: false }]);
  assert.equal((await sh('host', 'md5sum /root/work/blob')).stdout, sum);
  assert.equal((await sh('host', 'cat /etc/marker')).stdout, 'data\n');
  assert.equal((await sh('host', 'echo v > /srv/late/f && cat /srv/late/f')).stdout, 'v\n');

  const again = await t.api('POST', `${P}/volumes/late/attach`, { box: 'host', path: '/other' });
  assert.equal(again.status, 409);
  assert.equal((await t.api('POST', `${P}/volumes/late/attach`, { box: 'ghost', path: '/x' })).status, 404);

  await ok<Box>(await t.api('POST', `${P}/boxes/host/stop`));
  const detached = await ok<Volume>(await t.api('POST', `${P}/volumes/late/detach`, { box: 'host' }));
  assert.deepEqual(detached.mounts, []);
  const stopped = await ok<Box>(await t.api('GET', `${P}/boxes/host`));
  assert.equal(stopped.status, 'stopped', 'a stopped box stays stopped');
  assert.equal(stopped.data_mounts, null);
  await ok<Box>(await t.api('POST', `${P}/boxes/host/resume`));
  assert.equal((await sh('host', 'test -e /srv/late/f && echo there || echo gone')).stdout, 'gone\n');
  assert.equal((await sh('host', 'md5sum /root/work/blob')).stdout, sum);
  assert.equal((await t.api('POST', `${P}/volumes/late/detach`, { box: 'host' })).status, 409);
  assert.equal((await t.api('DELETE', `${P}/volumes/late`)).status, 204);
  assert.equal(
    (await docker.listVolumes({ filters: { label: [`boxdesk.volume=late`, `boxdesk.project=${P.split('/').pop()}`] } }))
      .Volumes.length,
    0,
  );
});
