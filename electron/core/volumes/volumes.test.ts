import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Volume } from '../../../shared/schemas/volumes';
import { startMemoryCore, type MemoryCore } from '../../../test-support/memory-core';
import { badMountsScenario, ok, sharedDataScenario, shIn } from '../../../test-support/volume-scenarios';

// VolumeService through the real API and SQLite file on the in-memory engine: the
// records, the mount rules, data shared and kept through mounts, attach and detach
// recreating a box's container with its root kept. Copies, snapshots and backups run
// helper scripts the memory engine does not speak: they stay integration tests.

let t: MemoryCore;
const P = '/v1/projects/vols';

before(async () => {
  t = await startMemoryCore();
});
after(() => t.close());

const sh = (box: string, script: string) => shIn(t, P, box, script);

async function readFile(box: string, path: string): Promise<Buffer> {
  const res = await t.api('GET', `${P}/boxes/${box}/files?path=${encodeURIComponent(path)}`);
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

test('a volume: its record, its labelled engine volume, and the names it refuses', async () => {
  const vol = await ok<Volume>(await t.api('POST', `${P}/volumes`, { name: 'shared', size_gb: 2 }), 201);
  assert.deepEqual([vol.size_gb, vol.size_enforced, vol.backup_retention, vol.mounts], [2, false, 7, []]);
  const [engineVolume] = await t.engine.listVolumes({ 'boxdesk.id': vol.id });
  assert.deepEqual(
    [engineVolume?.labels['boxdesk.volume'], engineVolume?.labels['boxdesk.project']],
    ['shared', 'vols'],
  );
  assert.equal((await t.api('POST', `${P}/volumes`, { name: 'shared' })).status, 409);
  assert.equal((await t.api('POST', `${P}/volumes`, { name: 'Bad_Name' })).status, 400);
});

test('data written through one box is read from another, read-only refuses writes, and it outlives the box', async () => {
  await sharedDataScenario(t, P);
});

test('a mount of an unknown volume is a 404 and bad mount paths are 400s, nothing created', async () => {
  await badMountsScenario(t, P, [[{ name: 'paths', path: 'relative' }]]);
  assert.deepEqual(await t.engine.listContainers({ 'boxdesk.box': 'nomount' }), []);
});

test('attach to a running box recreates it running with every root file kept; detach takes the mount away', async () => {
  await ok(await t.api('POST', `${P}/volumes`, { name: 'late' }), 201);
  const host = await ok<Box>(await t.api('POST', `${P}/boxes`, { name: 'host' }), 201);
  const blob = randomBytes(100_000);
  const upload = await fetch(`${t.url}${P}/boxes/host/files?path=/root/work/blob`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body: blob,
  });
  assert.equal(upload.status, 200, await upload.text());
  await sh('host', 'echo data > /etc/marker');
  const [before] = await t.engine.listContainers({ 'boxdesk.id': host.id });

  const attached = await ok<Volume>(
    await t.api('POST', `${P}/volumes/late/attach`, { box: 'host', path: '/srv/late' }),
  );
  assert.deepEqual(attached.mounts, [{ box: 'host', path: '/srv/late', read_only: false }]);
  const box = await ok<Box>(await t.api('GET', `${P}/boxes/host`));
  assert.deepEqual([box.status, box.data_mounts], ['running', [{ name: 'late', path: '/srv/late', read_only: false }]]);
  const [after] = await t.engine.listContainers({ 'boxdesk.id': host.id });
  assert.notEqual(after?.id, before?.id, 'a new container: the engine cannot add a mount to a live one');
  assert.ok((await readFile('host', '/root/work/blob')).equals(blob), 'the root’s files are kept');
  assert.equal((await sh('host', 'cat /etc/marker')).stdout, 'data\n');
  assert.equal((await sh('host', 'echo v > /srv/late/f && cat /srv/late/f')).stdout, 'v\n');

  assert.equal((await t.api('POST', `${P}/volumes/late/attach`, { box: 'host', path: '/other' })).status, 409);
  assert.equal((await t.api('POST', `${P}/volumes/late/attach`, { box: 'ghost', path: '/x' })).status, 404);

  await ok<Box>(await t.api('POST', `${P}/boxes/host/stop`));
  const detached = await ok<Volume>(await t.api('POST', `${P}/volumes/late/detach`, { box: 'host' }));
  assert.deepEqual(detached.mounts, []);
  const stopped = await ok<Box>(await t.api('GET', `${P}/boxes/host`));
  assert.deepEqual([stopped.status, stopped.data_mounts], ['stopped', null], 'a stopped box stays stopped');
  await ok<Box>(await t.api('POST', `${P}/boxes/host/resume`));
  assert.equal((await sh('host', 'test -e /srv/late/f && echo there || echo gone')).stdout, 'gone\n');
  assert.ok((await readFile('host', '/root/work/blob')).equals(blob));
  assert.equal((await t.api('POST', `${P}/volumes/late/detach`, { box: 'host' })).status, 409);
  assert.equal((await t.api('DELETE', `${P}/volumes/late`)).status, 204);
  assert.deepEqual(await t.engine.listVolumes({ 'boxdesk.volume': 'late', 'boxdesk.project': 'vols' }), []);
});
