import { ratioResult, type ScenarioResult } from '../report';
import { containerOfBox, docker, rawCreateAndStart, rawRemove } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import { createBox, deleteBox, type BenchContext, type BenchScenario } from './context';

const CREATE_TARGET = 1.2;
const WARMUP = 2;

/** Fields of the core's container that must equal the raw baseline's, or the comparison is unfair. */
async function compareConfig(ctx: BenchContext, box: string, rawId: string): Promise<string[]> {
  const [ours, raw] = await Promise.all([
    docker.getContainer(await containerOfBox(ctx.project, box)).inspect(),
    docker.getContainer(rawId).inspect(),
  ]);
  const pick = (c: typeof ours) => ({
    Cmd: c.Config.Cmd,
    Entrypoint: c.Config.Entrypoint,
    Tty: c.Config.Tty,
    OpenStdin: c.Config.OpenStdin,
    labels: Object.keys(c.Config.Labels ?? {}).length,
    Init: c.HostConfig.Init,
    NanoCpus: c.HostConfig.NanoCpus,
    Memory: c.HostConfig.Memory,
    MemorySwap: c.HostConfig.MemorySwap,
    StorageOpt: c.HostConfig.StorageOpt ?? null,
  });
  const a = pick(ours);
  const b = pick(raw);
  return Object.keys(a)
    .filter((k) => JSON.stringify(a[k as keyof typeof a]) !== JSON.stringify(b[k as keyof typeof b]))
    .map(
      (k) =>
        `config differs in ${k}: core ${JSON.stringify(a[k as keyof typeof a])}, raw ${JSON.stringify(b[k as keyof typeof b])}`,
    );
}

function rawName(i: number | string): string {
  return `boxdesk-bench-raw-${i}-${Math.random().toString(36).slice(2, 8)}`;
}

/** create→running and delete, each alternating core and raw engine calls. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  progress(`create/delete: warming up (${WARMUP} each)`);
  for (let i = 0; i < WARMUP; i++) {
    await createBox(ctx, `warm${i}`);
    const id = await rawCreateAndStart(ctx.image, rawName(`warm${i}`));
    ctx.rawIds.add(id);
    if (i === 0) {
      const diffs = await compareConfig(ctx, `warm${i}`, id);
      for (const d of diffs) progress(`WARNING ${d}`);
    }
    await deleteBox(ctx, `warm${i}`);
    await rawRemove(id);
    ctx.rawIds.delete(id);
  }

  const rawIds: string[] = [];
  progress(`create→running: ${ctx.n} boxes and ${ctx.n} raw containers, alternating`);
  const created = await alternate(
    ctx.n,
    async (i) => (await timed(() => createBox(ctx, `b${i}`))).ms,
    async (i) => {
      const { ms, value } = await timed(() => rawCreateAndStart(ctx.image, rawName(i)));
      rawIds[i] = value;
      ctx.rawIds.add(value);
      return ms;
    },
    (i) => (i + 1) % 10 === 0 && progress(`  created ${i + 1}/${ctx.n}`),
  );
  const configNotes = await compareConfig(ctx, 'b0', rawIds[0]!);

  progress(`delete: ${ctx.n} boxes and ${ctx.n} raw containers, alternating`);
  const deleted = await alternate(
    ctx.n,
    async (i) => (await timed(() => deleteBox(ctx, `b${i}`))).ms,
    async (i) => {
      const ms = (await timed(() => rawRemove(rawIds[i]!))).ms;
      ctx.rawIds.delete(rawIds[i]!);
      return ms;
    },
    (i) => (i + 1) % 10 === 0 && progress(`  deleted ${i + 1}/${ctx.n}`),
  );

  return [
    ratioResult('create→running', created, CREATE_TARGET, [
      'raw = createContainer (same body) + start',
      ...configNotes,
    ]),
    ratioResult('delete', deleted, null, ['raw = remove({force, v})']),
  ];
}

export const lifecycle: BenchScenario = { name: 'create→running + delete', run };
