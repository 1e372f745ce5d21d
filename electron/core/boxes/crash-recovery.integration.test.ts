import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { cleanUpDataDir, instanceIdOf } from '../../../test-support/crash-data-dir';
import { containersOfBox, containersOfInstance, docker, waitFor } from '../../../test-support/docker';
import { SseClient, boxOf } from '../../../test-support/sse';

// These tests kill the real core process with SIGKILL in the middle of an
// operation, start it again on the same data dir, and check the store and
// the engine agree: nothing acknowledged is lost, nothing is orphaned.

const dataDir = tempDataDir();
let core: CoreProcess;
const P = '/v1/projects/crash/boxes';

after(() =>
  cleanUpDataDir(dataDir, core, async (c) => {
    const { items } = (await (await api(c, 'GET', P)).json()) as { items: Box[] };
    for (const b of items) await api(c, 'DELETE', `${P}/${b.name}`);
  }),
);

const instanceId = () => instanceIdOf(dataDir);

async function restart(): Promise<void> {
  await core.kill();
  core = await startCoreProcess({ dataDir });
}

async function getBox(name: string): Promise<Box | null> {
  const res = await api(core, 'GET', `${P}/${name}`);
  return res.status === 404 ? null : ((await res.json()) as Box);
}

async function settled(name: string, status: string | null): Promise<Box | null> {
  return waitFor(
    async () => {
      const box = await getBox(name);
      if (status === null) return box === null ? ({} as Box) : null;
      return box?.status === status ? box : null;
    },
    30_000,
    `${name} to be ${status ?? 'gone'}`,
  ).then((b) => (status === null ? null : b));
}

/** Freezes the box's main process so a stop has to wait out the grace period. */
async function freezeMain(name: string): Promise<void> {
  await api(core, 'POST', `${P}/${name}/exec`, {
    command: [
      'sh',
      '-c',
      'for p in /proc/[0-9]*; do [ "${p#/proc/}" != $$ ] && [ "$(cut -d" " -f4 $p/stat)" = 1 ] && grep -q "^sh" $p/comm && kill -STOP ${p#/proc/}; done; true',
    ],
  });
}

test('an acknowledged box survives a crash of the core', async () => {
  core = await startCoreProcess({ dataDir });
  const created = (await (await api(core, 'POST', P, { name: 'keeper' })).json()) as Box;
  await restart();
  const box = await getBox('keeper');
  assert.equal(box?.id, created.id);
  assert.equal(box?.status, 'running');
  const containers = await containersOfBox(created.id);
  assert.equal(containers.length, 1);
  assert.equal(containers[0]!.State, 'running');
});

test('kill -9 in the middle of create: the box is finished on restart, with exactly one container', async () => {
  const sse = new SseClient(`${core.url}/v1/events`, core.token);
  const pending = api(core, 'POST', P, { name: 'half-made' }).catch(() => null);
  await sse.waitFor((e) => e.event === 'box.created' && boxOf(e).name === 'half-made');
  await restart();
  sse.close();
  await pending;
  const box = await settled('half-made', 'running');
  const containers = await containersOfBox(box!.id);
  assert.equal(containers.length, 1, 'no duplicate, no orphan');
  assert.equal(containers[0]!.State, 'running');
});

test('kill -9 in the middle of stop: the stop is finished on restart', async () => {
  await api(core, 'POST', P, { name: 'stopper' });
  await api(core, 'PUT', `${P}/stopper`, { termination_grace_period_seconds: 3 });
  await freezeMain('stopper');
  const sse = new SseClient(`${core.url}/v1/events`, core.token);
  const pending = api(core, 'POST', `${P}/stopper/stop`).catch(() => null);
  await sse.waitFor((e) => e.event === 'box.status' && boxOf(e).name === 'stopper' && boxOf(e).status === 'stopping');
  await restart();
  sse.close();
  await pending;
  const box = await settled('stopper', 'stopped');
  const [c] = await containersOfBox(box!.id);
  assert.equal((await docker.getContainer(c!.Id).inspect()).State.Running, false);
});

test('kill -9 in the middle of delete: the delete is finished on restart, nothing left behind', async () => {
  const created = (await (await api(core, 'POST', P, { name: 'deleter' })).json()) as Box;
  await api(core, 'PUT', `${P}/deleter`, { termination_grace_period_seconds: 3 });
  const sse = new SseClient(`${core.url}/v1/events`, core.token);
  const pending = api(core, 'DELETE', `${P}/deleter`).catch(() => null);
  await sse.waitFor((e) => e.event === 'box.status' && boxOf(e).name === 'deleter' && boxOf(e).status === 'deleting');
  await restart();
  sse.close();
  await pending;
  await settled('deleter', null);
  assert.equal((await containersOfBox(created.id)).length, 0);
});

test('at start, a labelled container without a box is removed and a box whose container vanished turns error', async () => {
  const victim = (await (await api(core, 'POST', P, { name: 'vanishing' })).json()) as Box;
  await core.stop();
  const orphan = await docker.createContainer({
    Image: 'boxdesk-test/busybox:1',
    Cmd: ['sleep', '600'],
    Labels: {
      'boxdesk.id': 'box_orphanorphanorphan00',
      'boxdesk.instance': instanceId(),
      'boxdesk.project': 'crash',
      'boxdesk.box': 'orphan',
    },
  });
  for (const c of await containersOfBox(victim.id)) await docker.getContainer(c.Id).remove({ force: true });
  core = await startCoreProcess({ dataDir });
  await assert.rejects(docker.getContainer(orphan.id).inspect(), /no such container/i);
  const box = await settled('vanishing', 'error');
  assert.match(box!.status_reason ?? '', /removed outside Boxdesk/);
  // Helpers (the store's, a volume's) carry the instance with an empty box id: they are no box's.
  const ours = (await containersOfInstance(instanceId())).filter((c) => c.Labels['boxdesk.id']);
  const { items } = (await (await api(core, 'GET', P)).json()) as { items: Box[] };
  const ids = new Set(items.map((b) => b.id));
  assert.ok(
    ours.every((c) => ids.has(c.Labels['boxdesk.id']!)),
    'every container of this core has a box',
  );
});

test('at start, a fork image no box uses is removed; a fork in use keeps its image', async () => {
  await api(core, 'POST', P, { name: 'origin' });
  const fork = (await (await api(core, 'POST', P, { name: 'offspring', fork: 'origin' })).json()) as Box;
  assert.equal(fork.status, 'running');
  const [c] = await containersOfBox(fork.id);
  const forkImage = (await docker.getContainer(c!.Id).inspect()).Image;
  await core.stop();
  // What a crash between a fork's commit and its record leaves behind:
  const [source] = await docker.listContainers({
    all: true,
    filters: { label: ['boxdesk.box=origin', `boxdesk.instance=${instanceId()}`] },
  });
  const orphan = (await docker.getContainer(source!.Id).commit({
    changes: [`LABEL boxdesk.instance=${instanceId()}`, 'LABEL boxdesk.fork-of=box_crashedcrashedcrash'],
  })) as { Id: string };
  core = await startCoreProcess({ dataDir });
  await assert.rejects(docker.getImage(orphan.Id).inspect(), /no such image/i);
  assert.ok(await docker.getImage(forkImage).inspect(), 'the image of a fork in use stays');
  const read = (await (await api(core, 'POST', `${P}/offspring/exec`, { command: ['true'] })).json()) as {
    exit_code: number;
  };
  assert.equal(read.exit_code, 0);
});
