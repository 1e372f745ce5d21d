import fs from 'node:fs';
import { randomBase32 } from '../../electron/core/ids';
import type { Storage } from '../../electron/core/storage/storage';
import type { StorageDriverName } from '../../electron/core/storage/storage-driver';
import { tempDataDir } from '../../test-support/core-process';
import { MiB, inContainer, openStorage, removeStoreLeftovers } from '../../test-support/storage';
import type { ScenarioResult } from '../report';
import { alternate, progress, summarize, type Summary } from '../stats';
import type { BenchContext, BenchScenario } from './context';

const TARGET = 1.2;
const GiB = 1024 * MiB;

/** The raw store operations (no boxes yet): the figures the second pass compares box fork and snapshot with. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const driver = (process.env.BENCH_STORAGE_DRIVER ?? 'loop-btrfs') as StorageDriverName;
  const n = Math.min(ctx.n, Number(process.env.BENCH_STORAGE_N ?? 10));
  const dataDir = tempDataDir('boxdesk-bench-store-');
  const instanceId = `bench${randomBase32(8)}`;
  const { storage, engine, db } = openStorage(dataDir, instanceId, driver, {
    settings: { driver, sizeBytes: 8 * GiB },
  });
  try {
    await storage.start();
    if (storage.driverName !== driver) throw new Error(`the ${driver} store did not start: ${storage.report().reason}`);
    const fill = async (script: string) => {
      const item = await storage.create({ owner: 'bench' });
      const res = await inContainer(engine, [{ ...(await storage.mountFor(item.id)), path: '/w' }], script);
      if (res.code !== 0) throw new Error(`filling a store item failed: ${res.output}`);
      return item.id;
    };
    progress(`storage (${driver}): filling 1 GiB and 50,000 small files`);
    const empty = await fill('true');
    const big = await fill('dd if=/dev/urandom of=/w/data bs=1M count=1024 2>/dev/null');
    const many = await fill('mkdir -p /w/d && cd /w/d && i=0; while [ $i -lt 50000 ]; do : > f$i; i=$((i+1)); done');
    // What the fills wrote is on disk before anything is timed (a snapshot would otherwise flush it first).
    await storage.settle();

    /** One timed operation on `source`, its result deleted (untimed) before the next round. */
    const op = (kind: 'snapshot' | 'clone', source: string) => async () => {
      const start = performance.now();
      const made =
        kind === 'snapshot'
          ? await storage.snapshot(source, { owner: 'bench' })
          : await storage.clone(source, { owner: 'bench' });
      const ms = performance.now() - start;
      // Untimed, and waited for: btrfs frees a deleted snapshot in the background.
      await storage.delete(made.id);
      await storage.settle();
      return ms;
    };
    const results: ScenarioResult[] = [];
    for (const [kind, source, label] of [
      ['snapshot', big, '1 GiB'],
      ['snapshot', many, '50,000 files'],
      ['clone', big, '1 GiB'],
    ] as const) {
      progress(`storage (${driver}): ${kind} of ${label} vs empty, n=${n}`);
      const runs = await alternate(n, op(kind, source), op(kind, empty));
      results.push(row(`store ${kind}: ${label} vs empty (${driver})`, n, summarize(runs.ours), summarize(runs.raw)));
    }
    results.push(await tenSnapshots(storage, big, driver));
    return results;
  } finally {
    for (const item of storage.list().reverse()) await storage.delete(item.id).catch(() => undefined);
    await storage.stop().catch(() => undefined);
    db.close();
    await removeStoreLeftovers(engine, instanceId);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function row(name: string, n: number, ours: Summary, raw: Summary): ScenarioResult {
  const ratio = ours.p50 / raw.p50;
  return {
    name,
    unit: 'ms',
    n,
    ours,
    raw,
    ratioKind: 'data / empty p50',
    ratio,
    target: `≤ ${TARGET}`,
    verdict: ratio <= TARGET ? 'PASS' : 'MISS',
    notes: [`p95 ratio ${(ours.p95 / raw.p95).toFixed(2)}; each through the store's helper (an engine exec)`],
  };
}

/** The store's own filesystem use before and after ten snapshots of the 1 GiB item (the target: ≤ 0.1 GiB). */
async function tenSnapshots(storage: Storage, source: string, driver: StorageDriverName): Promise<ScenarioResult> {
  await storage.settle();
  const before = storage.report().used_bytes ?? NaN;
  for (let i = 0; i < 10; i++) await storage.snapshot(source, { owner: 'bench' });
  await storage.settle();
  const grew = (storage.report().used_bytes ?? NaN) - before;
  const gib = grew / GiB;
  return {
    name: `store: disk used by ten snapshots of 1 GiB (${driver})`,
    unit: 'GiB',
    n: 10,
    ours: null,
    raw: null,
    ratioKind: 'GiB',
    ratio: gib,
    target: '≤ 0.1',
    verdict: gib <= 0.1 ? 'PASS' : 'MISS',
    notes: [`the store's filesystem grew ${(grew / MiB).toFixed(1)} MiB`],
    cells: { ours: `${gib.toFixed(3)} GiB`, raw: '' },
  };
}

export const storageOps: BenchScenario = { name: 'store snapshot and clone', run };
