import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Volume } from '../../../shared/schemas/volumes';
import { docker } from '../../../test-support/docker';
import { withTestCore, type TestCore } from '../../../test-support/test-core';
import {
  badMountsScenario,
  deleteBoxesAndVolumes,
  ok,
  sharedDataScenario,
  shIn,
} from '../../../test-support/volume-scenarios';

// Volumes mounted into boxes against the real engine: shared data, read-only
// mounts, data that outlives its boxes, attach/detach keeping a box's root.

let t: TestCore;
const P = `/v1/projects/vm${Date.now().toString(36)}`;

withTestCore(
  (core) => (t = core),
  (core) => deleteBoxesAndVolumes(core, P),
);

const sh = (box: string, script: string) => shIn(t, P, box, script);

test('data written through one box is read from another, read-only refuses writes, and it survives deleting the box', async () => {
  const vol = await ok<Volume>(await t.api('POST', `${P}/volumes`, { name: 'shared', size_gb: 2 }), 201);
  assert.equal(vol.size_gb, 2);
  // Enforced only as a btrfs store's quota: the suite's default copy store records it only.
  const { storage } = await ok<{ storage: { driver: string | null } }>(await t.api('GET', '/v1/system'));
  assert.equal(vol.size_enforced, storage.driver?.includes('btrfs') ?? false, `on the ${storage.driver} store`);
  assert.equal(vol.backup_retention, 7);
  assert.deepEqual(vol.mounts, []);
  const [engineVolume] = (await docker.listVolumes({ filters: { label: [`boxdesk.id=${vol.id}`] } })).Volumes;
  assert.equal(engineVolume?.Labels['boxdesk.volume'], 'shared');
  assert.equal(engineVolume?.Labels['boxdesk.project'], P.split('/').pop());

  await sharedDataScenario(t, P);
});

test('a mount of an unknown volume is a 404 and bad mount paths are 400s, nothing created', async () => {
  await badMountsScenario(t, P);
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
  // Both labels checked here too: Podman 4.3 lists the volumes that carry either.
  const project = P.split('/').pop();
  const { Volumes } = await docker.listVolumes({ filters: { label: ['boxdesk.volume=late'] } });
  assert.equal(Volumes.filter((v) => v.Labels?.['boxdesk.project'] === project).length, 0);
});
