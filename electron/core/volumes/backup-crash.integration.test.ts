import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Volume, VolumeBackup } from '../../../shared/schemas/volumes';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { cleanUpDataDir, instanceIdOf } from '../../../test-support/crash-data-dir';
import { containersOfBox, docker, waitFor } from '../../../test-support/docker';

// SIGKILL the real core during a backup of a volume a running box writes to,
// start it again on the same data dir: no helper container, no extra engine
// volume, no half-written archive, the backup listed as failed (never done),
// the box thawed and running, and a new backup works.

const dataDir = tempDataDir();
let core: CoreProcess;
const P = '/v1/projects/crashvol';

after(() =>
  cleanUpDataDir(dataDir, core, async (c) => {
    for (const b of ((await (await api(c, 'GET', `${P}/boxes`)).json()) as { items: Box[] }).items)
      await api(c, 'DELETE', `${P}/boxes/${b.name}`);
    for (const v of ((await (await api(c, 'GET', `${P}/volumes`)).json()) as { items: Volume[] }).items)
      await api(c, 'DELETE', `${P}/volumes/${v.name}`);
  }),
);

const instanceId = () => instanceIdOf(dataDir);

/** Containers copying a volume: the volumes' own helpers, and the copy store's (a volume on the store). */
async function helpers(instance: string) {
  const withRole = (role: string) =>
    docker.listContainers({ all: true, filters: { label: [`boxdesk.instance=${instance}`, `boxdesk.role=${role}`] } });
  const store = await withRole('store-helper');
  return [
    ...(await withRole('volume-helper')),
    ...store.filter((c) => c.Names.some((n) => n.startsWith('/boxdesk-store-copy-'))),
  ];
}

function partials(volumeId: string): string[] {
  const dir = path.join(dataDir, 'backups', volumeId);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.partial')) : [];
}

for (const when of ['while the point-in-time copy runs', 'while the archive is written'] as const) {
  test(`kill -9 ${when}: no helper container, no half-written archive listed as done`, async () => {
    core ??= await startCoreProcess({ dataDir });
    const volume = when.includes('copy') ? 'vol-a' : 'vol-b';
    const box = `${volume}-user`;
    const vol = (await (await api(core, 'POST', `${P}/volumes`, { name: volume })).json()) as Volume;
    const created = (await (
      await api(core, 'POST', `${P}/boxes`, { name: box, data_mounts: [{ name: volume, path: '/data' }] })
    ).json()) as Box;
    const filled = await api(core, 'POST', `${P}/boxes/${box}/exec`, {
      command: ['sh', '-c', 'for i in 1 2 3 4 5 6; do head -c 16000000 /dev/urandom > /data/blob$i; done'],
    });
    assert.equal(filled.status, 200);
    const instance = instanceId();
    const [container] = await containersOfBox(created.id);

    const started = (await (await api(core, 'POST', `${P}/volumes/${volume}/backups`)).json()) as VolumeBackup;
    assert.equal(started.status, 'pending');
    if (when === 'while the point-in-time copy runs') {
      await waitFor(
        async () =>
          (await docker.getContainer(container!.Id).inspect()).State.Paused && (await helpers(instance)).length > 0,
        20_000,
        'the copy to pause the box',
      );
    } else {
      await waitFor(
        async () => partials(vol.id).length > 0 && (await helpers(instance)).length > 0,
        30_000,
        'the archive to be written',
      );
    }
    await core.kill();
    core = await startCoreProcess({ dataDir });

    assert.deepEqual(
      (await helpers(instance)).map((c) => c.Names),
      [],
      'no helper container outlives the crash',
    );
    assert.deepEqual(partials(vol.id), [], 'no half-written archive is left');
    const extra = (
      await docker.listVolumes({ filters: { label: [`boxdesk.instance=${instance}`, 'boxdesk.role=volume-snapshot'] } })
    ).Volumes;
    assert.deepEqual(
      extra.map((v) => v.Name),
      [],
      "the backup's point-in-time copy is gone",
    );
    const backups = (
      (await (await api(core, 'GET', `${P}/volumes/${volume}/backups`)).json()) as { items: VolumeBackup[] }
    ).items;
    assert.equal(backups.length, 1);
    assert.equal(backups[0]!.status, 'failed');
    assert.match(backups[0]!.reason!, /core stopped/);
    assert.equal((await api(core, 'GET', `${P}/volumes/${volume}/backups/${started.id}/download`)).status, 409);

    const after = (await (await api(core, 'GET', `${P}/boxes/${box}`)).json()) as Box;
    assert.equal(after.status, 'running', after.status_reason ?? '');
    assert.equal((await docker.getContainer(container!.Id).inspect()).State.Paused, false, 'the box was thawed');

    const again = (await (await api(core, 'POST', `${P}/volumes/${volume}/backups`)).json()) as VolumeBackup;
    const done = await waitFor(
      async () => {
        const b = (await (await api(core, 'GET', `${P}/volumes/${volume}/backups/${again.id}`)).json()) as VolumeBackup;
        return b.status === 'pending' ? null : b;
      },
      120_000,
      'the next backup',
    );
    assert.equal(done.status, 'done', done.reason ?? '');
  });
}

test('at start, a labelled engine volume of this core with no record goes; every recorded volume and its data stay', async () => {
  core ??= await startCoreProcess({ dataDir });
  const kept = (await (await api(core, 'POST', `${P}/volumes`, { name: 'kept' })).json()) as Volume;
  await api(core, 'POST', `${P}/boxes`, { name: 'keeper', data_mounts: [{ name: 'kept', path: '/k' }] });
  assert.equal(
    (await api(core, 'POST', `${P}/boxes/keeper/exec`, { command: ['sh', '-c', 'echo safe > /k/f'] })).status,
    200,
  );
  const instance = instanceId();
  await core.stop();
  // What a crash between the engine call and the record leaves: a labelled volume nobody names.
  const stray = `boxdesk-crashvol-stray-${Date.now().toString(36)}`;
  await docker.createVolume({
    Name: stray,
    Labels: {
      'boxdesk.instance': instance,
      'boxdesk.role': 'volume',
      'boxdesk.id': 'vol_strayvolumestrayvolu',
      'boxdesk.project': 'crashvol',
      'boxdesk.volume': 'stray',
    },
  });
  core = await startCoreProcess({ dataDir });
  await assert.rejects(docker.getVolume(stray).inspect(), /no such volume/i);
  const engineKept = (await docker.listVolumes({ filters: { label: [`boxdesk.id=${kept.id}`] } })).Volumes;
  assert.equal(engineKept.length, 1);
  const read = (await (await api(core, 'POST', `${P}/boxes/keeper/exec`, { command: ['cat', '/k/f'] })).json()) as {
    stdout: string;
  };
  assert.equal(read.stdout, 'safe\n');
});
