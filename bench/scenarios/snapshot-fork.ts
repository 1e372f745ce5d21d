import { api } from '../../test-support/core-process';
import { ratioResult, type ScenarioResult } from '../report';
import { containerOfBox, docker, rawContainerSpec, rawCreateAndStart, rawExec, rawRemove } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import {
  createBox,
  deleteBox,
  execInBox,
  expectJson,
  positiveIntFromEnv,
  type BenchContext,
  type BenchScenario,
} from './context';

const TARGET = 1.2;
const SIZES_MB = [1, 10, 100];

const writeCommand = (mb: number) => [
  'sh',
  '-c',
  `dd if=/dev/urandom of=/root/data bs=1M count=${mb} 2>/dev/null && sync`,
];

/** The raw engine's snapshot: commit (paused) and inspect the image, as the core does before it answers. */
async function rawSnapshot(containerId: string): Promise<string> {
  const { Id } = (await docker
    .getContainer(containerId)
    .commit({ pause: true, changes: ['LABEL boxdesk.bench=1'] })) as { Id: string };
  await docker.getImage(Id).inspect();
  return Id;
}

/** What a round leaves behind on either side, removed after it (and, on failure, by the scenario). */
class Leftovers {
  /** Snapshots outlive their box: a failed run must delete them itself. */
  readonly snapshots: string[] = [];
  readonly rawImages = new Set<string>();

  constructor(private readonly ctx: BenchContext) {}

  async remove(): Promise<void> {
    for (const id of this.snapshots.splice(0))
      await api(this.ctx.core, 'DELETE', `/v1/projects/${this.ctx.project}/snapshots/${id}`).then((r) =>
        r.arrayBuffer(),
      );
    for (const id of this.rawImages)
      await docker
        .getImage(id)
        .remove()
        .catch(() => undefined);
    this.rawImages.clear();
  }
}

/** `n` snapshots of the box against `n` raw commits of the raw container. */
async function snapshots(ctx: BenchContext, box: string, rawId: string, mb: number, left: Leftovers) {
  const n = positiveIntFromEnv('BENCH_SNAPSHOT_N', 5);
  const boxContainer = await containerOfBox(ctx.project, box);
  const runs = await alternate(
    n,
    async () => {
      const { ms, value } = await timed(() =>
        api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${box}/snapshots`, {}).then((r) =>
          expectJson<{ id: string }>(r, 201, 'snapshot'),
        ),
      );
      left.snapshots.push(value.id);
      return ms;
    },
    async () => {
      const { ms, value } = await timed(() => rawSnapshot(rawId));
      left.rawImages.add(value);
      return ms;
    },
  );
  const { size_bytes: size } = await expectJson<{ size_bytes: number }>(
    await api(ctx.core, 'GET', `/v1/projects/${ctx.project}/snapshots/${left.snapshots[0]}`),
    200,
    'get snapshot',
  );
  await left.remove();
  return ratioResult(`snapshot ${mb} MB`, runs, TARGET, [
    `raw = commit (paused) + image inspect; snapshot size ${(size / 1024 / 1024).toFixed(1)} MiB; box ${boxContainer.slice(0, 12)}`,
  ]);
}

/** `n` forks of the box against `n` raw commit + create + start. */
async function forks(ctx: BenchContext, box: string, rawId: string, mb: number, left: Leftovers) {
  const n = positiveIntFromEnv('BENCH_SNAPSHOT_N', 5);
  progress(`snapshot/fork ${mb} MB: ${n} forks and ${n} raw commit+create+start, alternating`);
  const rawForks: string[] = [];
  const runs = await alternate(
    n,
    async (i) => (await timed(() => createForkOf(ctx, box, `${box}-f${i}`))).ms,
    async (i) => {
      const { ms, value } = await timed(async () => {
        const image = await rawSnapshot(rawId);
        left.rawImages.add(image);
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
  await left.remove();
  return ratioResult(`fork ${mb} MB`, runs, TARGET, ['raw = commit (paused) + createContainer (same body) + start']);
}

/** Snapshot and fork of a box that wrote 1, 10 and 100 MB, beside commit (+ create + start) on the raw engine. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const left = new Leftovers(ctx);
  try {
    for (const mb of SIZES_MB) {
      const box = `snap${mb}`;
      progress(`snapshot/fork ${mb} MB: writing the data in a box and in a raw container`);
      await createBox(ctx, box);
      await execInBox(ctx, box, writeCommand(mb), 120);
      const rawId = await rawCreateAndStart(ctx.image, `boxdesk-bench-raw-snap${mb}-${Date.now().toString(36)}`);
      ctx.rawIds.add(rawId);
      await rawExec(rawId, writeCommand(mb));
      results.push(await snapshots(ctx, box, rawId, mb, left));
      results.push(await forks(ctx, box, rawId, mb, left));
      await deleteBox(ctx, box);
      await rawRemove(rawId);
      ctx.rawIds.delete(rawId);
    }
  } finally {
    await left.remove().catch(() => undefined);
  }
  return results;
}

async function createForkOf(ctx: BenchContext, source: string, name: string): Promise<void> {
  const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes`, { name, fork: source });
  ctx.boxes.add(name);
  await expectJson(res, 201, `fork ${name}`);
}

export const snapshotAndFork: BenchScenario = { name: 'snapshot and fork', run };
