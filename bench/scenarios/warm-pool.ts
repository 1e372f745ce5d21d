import type { PoolInfo } from '../../shared/schemas/system';
import { api } from '../../test-support/core-process';
import { ratioResult, type ScenarioResult } from '../report';
import { docker, rawCreateAndStart, rawRemove } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import { createBox, deleteBox, expectJson, sleep, type BenchContext, type BenchScenario } from './context';

const CREATE_TARGET = 0.3;
const WARM = 2;
const IDLE_POOL = 20;
const IDLE_WINDOW_MS = 10_000;

async function poolOf(ctx: BenchContext, base: string): Promise<PoolInfo | undefined> {
  const system = await expectJson<{ pools: PoolInfo[] }>(await api(ctx.core, 'GET', '/v1/system'), 200, 'system');
  return system.pools.find((p) => p.base === base);
}

/** Waits (untimed) until the base's pool holds `ready`, so every timed create finds a container ready. */
async function filled(ctx: BenchContext, base: string, ready: number): Promise<PoolInfo> {
  for (let i = 0; i < 1200; i++) {
    const pool = await poolOf(ctx, base);
    if (pool && pool.ready >= ready) return pool;
    await sleep(100);
  }
  throw new Error(`the pool of ${base} did not reach ${ready} ready in 2 minutes`);
}

async function setWarm(ctx: BenchContext, base: string, warm: number): Promise<void> {
  await expectJson(await api(ctx.core, 'PUT', `/v1/bases/${base}`, { warm }), 200, `warm ${warm}`);
}

/** CPU nanoseconds and memory bytes of the base's pool containers, from one stats read each. */
async function poolUsage(base: string): Promise<{ cpuNs: number; memory: number; count: number }> {
  const list = await docker.listContainers({ all: true, filters: { label: [`boxdesk.pool=${base}`] } });
  let cpuNs = 0;
  let memory = 0;
  for (const c of list) {
    const s = (await docker.getContainer(c.Id).stats({ stream: false })) as {
      cpu_stats: { cpu_usage: { total_usage: number } };
      memory_stats: { usage?: number };
    };
    cpuNs += s.cpu_stats.cpu_usage.total_usage;
    memory += s.memory_stats.usage ?? 0;
  }
  return { cpuNs, memory, count: list.length };
}

/** What IDLE_POOL paused pool containers cost at rest: their CPU over a window (one CPU = 100%) and their memory. */
async function idleCost(ctx: BenchContext, base: string): Promise<ScenarioResult> {
  await setWarm(ctx, base, IDLE_POOL);
  progress(`warm pool: filling ${IDLE_POOL} paused containers (untimed)`);
  await filled(ctx, base, IDLE_POOL);
  const before = await poolUsage(base);
  const t0 = performance.now();
  await sleep(IDLE_WINDOW_MS);
  const after = await poolUsage(base);
  const percent = ((after.cpuNs - before.cpuNs) / 1e6 / (performance.now() - t0)) * 100;
  const mib = after.memory / 1024 / 1024;
  return {
    name: `${IDLE_POOL} paused pool containers, idle`,
    unit: '% of one CPU',
    n: after.count,
    ours: null,
    raw: null,
    ratioKind: '—',
    ratio: null,
    target: '≤ 0.5%',
    verdict: percent <= 0.5 ? 'PASS' : 'MISS',
    notes: [`their CPU over ${IDLE_WINDOW_MS / 1000} s; memory together ${mib.toFixed(1)} MiB (cgroup usage)`],
    extra: { cpu_percent: percent, memory_bytes: after.memory, containers: after.count },
    cells: { ours: `${percent.toFixed(3)}%, ${mib.toFixed(1)} MiB` },
  };
}

/** create→running from a warm pool against a raw create+start, alternating; the pool refilled (untimed) before each. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const base = `${ctx.project}-warm`;
  await expectJson(await api(ctx.core, 'POST', '/v1/bases', { name: base, image: ctx.image }), 201, 'base');
  try {
    await setWarm(ctx, base, WARM);
    const hitsBefore = (await filled(ctx, base, WARM)).hits;
    const rawIds: string[] = [];
    progress(`create→running from a warm pool: ${ctx.n} boxes and ${ctx.n} raw containers, alternating`);
    const created = await alternate(
      ctx.n,
      async (i) => {
        await filled(ctx, base, WARM);
        return (await timed(() => createBox(ctx, `w${i}`, { base }))).ms;
      },
      async (i) => {
        await filled(ctx, base, WARM);
        const { ms, value } = await timed(() =>
          rawCreateAndStart(ctx.image, `boxdesk-bench-raw-pool-${i}-${Date.now()}`),
        );
        rawIds[i] = value;
        ctx.rawIds.add(value);
        return ms;
      },
      (i) => (i + 1) % 10 === 0 && progress(`  created ${i + 1}/${ctx.n}`),
    );
    const hits = ((await poolOf(ctx, base))?.hits ?? 0) - hitsBefore;
    for (let i = 0; i < ctx.n; i++) await deleteBox(ctx, `w${i}`);
    for (const id of rawIds) {
      await rawRemove(id);
      ctx.rawIds.delete(id);
    }
    const row = ratioResult('create→running, warm pool', created, CREATE_TARGET, [
      `raw = createContainer (same body) + start; ${hits} of ${ctx.n} creates took a pool container`,
    ]);
    return [row, await idleCost(ctx, base)];
  } finally {
    await setWarm(ctx, base, 0).catch(() => undefined);
    await api(ctx.core, 'DELETE', `/v1/bases/${base}`).catch(() => undefined);
  }
}

export const warmPool: BenchScenario = { name: 'create→running from a warm pool', run };
