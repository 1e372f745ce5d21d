import { api } from '../../test-support/core-process';
import type { ScenarioResult } from '../report';
import { containerOfBox, docker, rawContainerSpec, rawCreateAndStart, rawExec, rawRemove } from '../raw-engine';
import { alternate, progress, summarize, timed, type Summary } from '../stats';
import { createBox, deleteBox, execInBox, type BenchContext } from './context';

const TARGET = 1.2;
const SIZES_MB = [1, 10, 100];

function count(): number {
  const n = Number(process.env.BENCH_SNAPSHOT_N ?? 5);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_SNAPSHOT_N must be a positive whole number, got "${process.env.BENCH_SNAPSHOT_N}"`);
  return n;
}

const writeCommand = (mb: number) => [
  'sh',
  '-c',
  `dd if=/dev/urandom of=/root/data bs=1M count=${mb} 2>/dev/null && sync`,
];

async function expect(res: Response, status: number, what: string): Promise<unknown> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: expected HTTP ${status}, got ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The raw engine's snapshot: commit (paused) and inspect the image, as the core does before it answers. */
async function rawSnapshot(containerId: string): Promise<string> {
  const { Id } = (await docker
    .getContainer(containerId)
    .commit({ pause: true, changes: ['LABEL boxdesk.bench=1'] })) as { Id: string };
  await docker.getImage(Id).inspect();
  return Id;
}

function row(name: string, n: number, ours: Summary, raw: Summary, note: string): ScenarioResult {
  const ratio = ours.p50 / raw.p50;
  return {
    name,
    unit: 'ms',
    n,
    ours,
    raw,
    ratioKind: 'ours/raw p50',
    ratio,
    target: `≤ ${TARGET}`,
    verdict: ratio <= TARGET ? 'PASS' : 'MISS',
    notes: [`p95 ratio ${(ours.p95 / raw.p95).toFixed(2)}; ${note}`],
  };
}

/** Snapshot and fork of a box that wrote 1, 10 and 100 MB, beside commit (+ create + start) on the raw engine. */
export async function snapshotAndFork(ctx: BenchContext): Promise<ScenarioResult[]> {
  const n = count();
  const results: ScenarioResult[] = [];
  const rawImages = new Set<string>();
  // Snapshots outlive their box: a failed run must delete them itself.
  const snapIds: string[] = [];
  const deleteSnapshots = async () => {
    for (const id of snapIds.splice(0))
      await api(ctx.core, 'DELETE', `/v1/projects/${ctx.project}/snapshots/${id}`).then((r) => r.arrayBuffer());
  };
  try {
    for (const mb of SIZES_MB) {
      const box = `snap${mb}`;
      progress(`snapshot/fork ${mb} MB: writing the data in a box and in a raw container`);
      await createBox(ctx, box);
      await execInBox(ctx, box, writeCommand(mb), 120);
      const rawId = await rawCreateAndStart(ctx.image, `boxdesk-bench-raw-snap${mb}-${Date.now().toString(36)}`);
      ctx.rawIds.add(rawId);
      await rawExec(rawId, writeCommand(mb));
      const boxContainer = await containerOfBox(ctx.project, box);

      const snaps = await alternate(
        n,
        async () => {
          const { ms, value } = await timed(() =>
            api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${box}/snapshots`, {}).then((r) =>
              expect(r, 201, 'snapshot'),
            ),
          );
          snapIds.push((value as { id: string }).id);
          return ms;
        },
        async () => {
          const { ms, value } = await timed(() => rawSnapshot(rawId));
          rawImages.add(value);
          return ms;
        },
      );
      const size = (
        (await expect(
          await api(ctx.core, 'GET', `/v1/projects/${ctx.project}/snapshots/${snapIds[0]}`),
          200,
          'get snapshot',
        )) as { size_bytes: number }
      ).size_bytes;
      await deleteSnapshots();
      for (const id of rawImages)
        await docker
          .getImage(id)
          .remove()
          .catch(() => undefined);
      rawImages.clear();
      results.push(
        row(
          `snapshot ${mb} MB`,
          n,
          summarize(snaps.ours),
          summarize(snaps.raw),
          `raw = commit (paused) + image inspect; snapshot size ${(size / 1024 / 1024).toFixed(1)} MiB; box ${boxContainer.slice(0, 12)}`,
        ),
      );

      progress(`snapshot/fork ${mb} MB: ${n} forks and ${n} raw commit+create+start, alternating`);
      const rawForks: string[] = [];
      const forks = await alternate(
        n,
        async (i) => (await timed(() => createForkOf(ctx, box, `${box}-f${i}`))).ms,
        async (i) => {
          const { ms, value } = await timed(async () => {
            const image = await rawSnapshot(rawId);
            rawImages.add(image);
            const name = `boxdesk-bench-raw-fork${mb}-${i}-${Date.now().toString(36)}`;
            const id = (await docker.createContainer(rawContainerSpec(image, name))).id;
            ctx.rawIds.add(id);
            await docker.getContainer(id).start();
            return id;
          });
          rawForks.push(value);
          return ms;
        },
      );
      for (let i = 0; i < n; i++) await deleteBox(ctx, `${box}-f${i}`);
      for (const id of rawForks) {
        await rawRemove(id);
        ctx.rawIds.delete(id);
      }
      for (const id of rawImages)
        await docker
          .getImage(id)
          .remove()
          .catch(() => undefined);
      rawImages.clear();
      results.push(
        row(
          `fork ${mb} MB`,
          n,
          summarize(forks.ours),
          summarize(forks.raw),
          'raw = commit (paused) + createContainer (same body) + start',
        ),
      );

      await deleteBox(ctx, box);
      await rawRemove(rawId);
      ctx.rawIds.delete(rawId);
    }
  } finally {
    await deleteSnapshots().catch(() => undefined);
    for (const id of rawImages)
      await docker
        .getImage(id)
        .remove()
        .catch(() => undefined);
  }
  return results;
}

async function createForkOf(ctx: BenchContext, source: string, name: string): Promise<void> {
  const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes`, { name, fork: source });
  ctx.boxes.add(name);
  await expect(res, 201, `fork ${name}`);
}
