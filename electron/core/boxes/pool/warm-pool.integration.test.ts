import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import type { PoolInfo } from '../../../../shared/schemas/system';
import {
  api,
  startCoreProcess,
  tempDataDir,
  TEST_IMAGE,
  type CoreProcess,
} from '../../../../test-support/core-process';
import { cleanUpDataDir, instanceIdOf, readDb } from '../../../../test-support/crash-data-dir';
import { cgroupLimits, containersOfInstance, docker, waitFor } from '../../../../test-support/docker';
import { ok, runBox } from '../../../../test-support/cli-runner';
import { SseClient } from '../../../../test-support/sse';

// The warm pool against the real engine, through a real core process (killed with SIGKILL in the
// crash tests, as crash-recovery.integration.test.ts does). The default base keeps 2 ready.

const dataDir = tempDataDir();
const WARM = ['--default-warm', '2'];
let core: CoreProcess;
const P = '/v1/projects/pool/boxes';
const made: string[] = [];

after(() =>
  cleanUpDataDir(dataDir, core, async (c) => {
    for (const name of made) await api(c, 'DELETE', `${P}/${name}`);
    await api(c, 'DELETE', '/v1/projects/pool/volumes/pooldata');
    await api(c, 'DELETE', '/v1/bases/coldbase');
  }),
);

const json = async <T>(res: Response | Promise<Response>): Promise<T> => (await (await res).json()) as T;

async function pools(): Promise<PoolInfo[]> {
  return (await json<{ pools: PoolInfo[] }>(api(core, 'GET', '/v1/system'))).pools;
}

async function poolOf(base: string): Promise<PoolInfo | undefined> {
  return (await pools()).find((p) => p.base === base);
}

/** Waits until the base's pool holds `ready` containers, then answers it. */
function filled(base: string, ready: number): Promise<PoolInfo> {
  return waitFor(
    async () => {
      const pool = await poolOf(base);
      return (pool?.ready ?? 0) === ready ? (pool ?? { base, size: 0, ready: 0, hits: 0 }) : null;
    },
    60_000,
    `the pool of ${base} to hold ${ready}`,
  );
}

/** Containers of this core that carry a box id but belong to no box: the pool's. */
async function poolContainers() {
  const boxes = await json<{ items: Box[] }>(api(core, 'GET', `${P}?limit=500`));
  const ids = new Set(boxes.items.map((b) => b.id));
  return (await containersOfInstance(instanceIdOf(dataDir))).filter(
    (c) => c.Labels['boxdesk.id'] && !ids.has(c.Labels['boxdesk.id']),
  );
}

/** No orphan: every container without a box is a paused pool container; every store item is a box's or one of those. */
async function assertNoOrphans(): Promise<void> {
  const pool = await poolContainers();
  for (const c of pool) {
    assert.ok(c.Labels['boxdesk.pool'], `container ${c.Names[0]} has no box and is no pool container`);
    assert.equal(c.State, 'paused', `pool container ${c.Names[0]} is paused`);
  }
  const boxes = await json<{ items: Box[] }>(api(core, 'GET', `${P}?limit=500`));
  const owners = new Set(
    [...boxes.items, ...pool.map((c) => ({ id: c.Labels['boxdesk.id']! }))].map((b) => `box:${b.id}`),
  );
  const items = readDb(dataDir, (db) =>
    db.prepare("SELECT owner FROM storage_items WHERE owner LIKE 'box:%'").pluck().all(),
  ) as string[];
  for (const owner of items) assert.ok(owners.has(owner), `store item of ${owner} belongs to no box or pool container`);
}

async function sh(name: string, script: string): Promise<string> {
  const r = await json<{ stdout: string }>(api(core, 'POST', `${P}/${name}/exec`, { command: ['sh', '-c', script] }));
  return r.stdout.trim();
}

test('PUT /v1/bases/{name} sets the warm count; bad values are a 400 that changes nothing', async () => {
  core = await startCoreProcess({ dataDir, args: WARM });
  for (const body of [{ warm: 33 }, { warm: -1 }, { warm: 1.5 }, { warm: '2' }, {}, { warm: 1, image: 'x' }]) {
    const res = await api(core, 'PUT', '/v1/bases/default', body);
    assert.equal(res.status, 400, JSON.stringify(body));
  }
  assert.equal((await api(core, 'PUT', '/v1/bases/nothing', { warm: 1 })).status, 404);
  const { items } = await json<{ items: { name: string; warm: number }[] }>(api(core, 'GET', '/v1/bases'));
  assert.equal(items.find((b) => b.name === 'default')?.warm, 2);
  assert.deepEqual(await filled('default', 2), { base: 'default', size: 2, ready: 2, hits: 0 });
});

test('a create that fits takes a paused pool container: the same 201 Box as a cold create, its own limits, env and workspace', async () => {
  const before = await poolContainers();
  assert.equal(before.length, 2);
  assert.ok(before.every((c) => c.State === 'paused' && c.Labels['boxdesk.pool'] === 'default'));
  const res = await api(core, 'POST', P, {
    name: 'warm-a',
    config: { cpus: 2, ram_mb: 256, pids_limit: 100 },
    environment: { GREETING: 'hello' },
    tags: { kind: 'warm' },
  });
  made.push('warm-a');
  assert.equal(res.status, 201);
  const box = (await res.json()) as Box;
  assert.ok(
    before.some((c) => c.Labels['boxdesk.id'] === box.id),
    'the box is one of the pool containers',
  );
  assert.equal(box.status, 'running');
  // The same shape as a cold create of a base without a pool.
  await api(core, 'POST', '/v1/bases', { name: 'coldbase', image: TEST_IMAGE });
  const cold = await json<Box>(api(core, 'POST', P, { name: 'cold-a', base: 'coldbase' }));
  made.push('cold-a');
  assert.deepEqual(Object.keys(box).sort(), Object.keys(cold).sort());
  assert.ok(!before.some((c) => c.Labels['boxdesk.id'] === cold.id));
  // The engine's side: thawed, renamed, limited.
  const info = await docker.getContainer(before.find((c) => c.Labels['boxdesk.id'] === box.id)!.Id).inspect();
  assert.equal(info.State.Status, 'running');
  assert.equal(info.Name, `/boxdesk-pool-warm-a-${box.id.slice(4, 12)}`);
  const { nanoCpus, memoryBytes, pids } = await cgroupLimits(info.Id);
  assert.deepEqual([nanoCpus, memoryBytes, pids], [2e9, 256 * 1024 * 1024, 100]);
  // Inside: the box's environment, its hostname (fixed when made), its own /workspace.
  assert.equal(
    await sh('warm-a', 'echo "$GREETING $(hostname) $(pwd)"'),
    `hello box-${box.id.slice(4, 12)} /workspace`,
  );
  await sh('warm-a', 'echo mine > /workspace/secret');
  const second = await json<Box>(api(core, 'POST', P, { name: 'warm-b' }));
  made.push('warm-b');
  assert.ok(before.some((c) => c.Labels['boxdesk.id'] === second.id));
  assert.equal(await sh('warm-b', 'ls /workspace; echo "[$GREETING]"'), '[]');
  // Both on their project's network, each reached by its name (a pool container starts on none on Docker).
  const address = await sh('warm-a', 'hostname -i');
  assert.match(address, /^\d+\.\d+\.\d+\.\d+$/);
  assert.match(await sh('warm-b', 'nslookup warm-a 2>&1'), new RegExp(`Address: ${address.replaceAll('.', '\\.')}`));
  assert.equal((await poolOf('default'))?.hits, 2);
});

test('the pool refills in the background, and its containers never show as boxes or box events', async () => {
  const sse = new SseClient(`${core.url}/v1/events`, core.token);
  await filled('default', 2);
  await assertNoOrphans();
  const { items } = await json<{ items: Box[] }>(api(core, 'GET', P));
  assert.deepEqual(items.map((b) => b.name).sort(), ['cold-a', 'warm-a', 'warm-b']);
  const pool = new Set((await poolContainers()).map((c) => c.Labels['boxdesk.id']));
  assert.equal(pool.size, 2);
  sse.close();
  const boxEvents = sse.events.filter((e) => e.event.startsWith('box.'));
  assert.ok(boxEvents.every((e) => !pool.has((JSON.parse(e.data) as { box?: Box }).box?.id ?? '')));
});

test('a create that does not fit (data_mounts) goes cold and leaves the pool as it was', async () => {
  await api(core, 'POST', '/v1/projects/pool/volumes', { name: 'pooldata' });
  const pool = new Set((await poolContainers()).map((c) => c.Labels['boxdesk.id']));
  const { hits } = (await poolOf('default'))!;
  const res = await api(core, 'POST', P, { name: 'mounted', data_mounts: [{ name: 'pooldata', path: '/data' }] });
  made.unshift('mounted');
  assert.equal(res.status, 201);
  const box = (await res.json()) as Box;
  assert.ok(!pool.has(box.id));
  assert.equal(await sh('mounted', 'hostname'), 'mounted');
  assert.deepEqual(await poolOf('default'), { base: 'default', size: 2, ready: 2, hits });
});

test('deleting a base drains its pool', async () => {
  await api(core, 'POST', '/v1/bases', { name: 'pooled', image: TEST_IMAGE });
  const updated = await json<{ warm: number }>(api(core, 'PUT', '/v1/bases/pooled', { warm: 1 }));
  assert.equal(updated.warm, 1);
  await filled('pooled', 1);
  assert.equal((await api(core, 'DELETE', '/v1/bases/pooled')).status, 204);
  assert.equal(await poolOf('pooled'), undefined);
  assert.ok((await poolContainers()).every((c) => c.Labels['boxdesk.pool'] !== 'pooled'));
  await assertNoOrphans();
});

test('the CLI: box base update --warm sets the count, box health shows each pool', async () => {
  const box = (...args: string[]) => runBox(['--url', core.url, '--token', core.token, ...args]);
  assert.match(
    ok(await box('base', 'update', 'default', '--warm', '3'), 'base update').stdout,
    /^base default: warm 3$/m,
  );
  const refused = await box('base', 'update', 'default', '--warm', '33');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /warm/);
  assert.equal((await box('base', 'update', 'default')).code, 2, 'no --warm is a usage error');
  const health = ok(await box('health'), 'health').stdout;
  assert.match(health, /^warm pools:\s+default \d\/3 ready, \d+ hits?$/m);
  await api(core, 'PUT', '/v1/bases/default', { warm: 2 });
});

test('kill -9 of the core while the pool refills: no orphan after the restart, and the pool fills again', async () => {
  await api(core, 'PUT', '/v1/bases/default', { warm: 0 });
  await waitFor(async () => (await poolContainers()).length === 0, 30_000, 'the pool to drain');
  await api(core, 'PUT', '/v1/bases/default', { warm: 2 });
  // Caught between the container's making and its pause.
  await waitFor(
    async () => (await poolContainers()).some((c) => c.State !== 'paused'),
    30_000,
    'a pool container in the making',
  );
  await core.kill();
  core = await startCoreProcess({ dataDir, args: WARM });
  await filled('default', 2);
  assert.equal((await poolContainers()).length, 2);
  await assertNoOrphans();
});

test('kill -9 of the core during a claim: an answered box survives, no orphan, nothing half-claimed', async () => {
  const events = await docker.getEvents({ filters: { event: ['unpause'], label: ['boxdesk.pool=default'] } });
  const unpaused = new Promise<void>((resolve) => events.once('data', () => resolve()));
  let answered: Box | null = null;
  const pending = api(core, 'POST', P, { name: 'claimed' })
    .then(async (res) => (answered = res.status === 201 ? ((await res.json()) as Box) : null))
    .catch(() => null);
  made.push('claimed');
  await unpaused;
  await core.kill();
  (events as unknown as { destroy(): void }).destroy();
  await pending;
  core = await startCoreProcess({ dataDir, args: WARM });
  const res = await api(core, 'GET', `${P}/claimed`);
  if (answered) assert.equal(res.status, 200, 'an answered create is never lost');
  if (res.status === 200) {
    const box = await waitFor(async () => {
      const b = await json<Box>(api(core, 'GET', `${P}/claimed`));
      return b.status === 'running' ? b : null;
    });
    assert.equal(await sh('claimed', 'pwd'), '/workspace');
    const [c] = await docker.listContainers({ all: true, filters: { label: [`boxdesk.id=${box.id}`] } });
    assert.equal(c?.State, 'running');
  }
  await filled('default', 2);
  await assertNoOrphans();
});

test('what a claim cut short before its record leaves (a thawed pool container, no box) goes at the next start', async () => {
  await filled('default', 2);
  const [victim] = await poolContainers();
  await core.kill();
  await docker.getContainer(victim!.Id).unpause();
  core = await startCoreProcess({ dataDir, args: WARM });
  await assert.rejects(docker.getContainer(victim!.Id).inspect(), /no such container/i);
  await filled('default', 2);
  await assertNoOrphans();
});
