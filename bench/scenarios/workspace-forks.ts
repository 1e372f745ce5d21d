import { api, startCoreProcess } from '../../test-support/core-process';
import { storeSkipReason } from '../../test-support/storage';
import { ratioResult, type ScenarioResult } from '../report';
import { docker, rawContainerSpec, rawCreateAndStart, rawExec, rawRemove } from '../raw-engine';
import { alternate, progress, timed } from '../stats';
import { expectJson, positiveIntFromEnv, type BenchContext, type BenchScenario } from './context';

const FILL_1GIB = ['sh', '-c', 'dd if=/dev/urandom of=/workspace/data bs=1M count=1024 2>/dev/null && sync'];

/**
 * Issue 28's rows for boxes: a fork and a snapshot of a box with 1 GiB in /workspace against the
 * same of an empty box, and the fork against a raw engine commit (+ create + start) of a container
 * that wrote the same 1 GiB in its root. A core of its own on the loop-btrfs store (the run's core
 * uses the suite's store).
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const n = positiveIntFromEnv('BENCH_WORKSPACE_N', 5);
  const driver = process.env.BENCH_STORAGE_DRIVER ?? 'loop-btrfs';
  const core = await startCoreProcess({ args: ['--storage-driver', driver] });
  const own: BenchContext = { ...ctx, core, boxes: new Set() };
  const call = (method: string, path: string, body?: unknown) =>
    api(core, method, `/v1/projects/${ctx.project}${path}`, body);
  let rawId: string | null = null;
  const rawImages: string[] = [];
  try {
    const skip = await storeSkipReason((m, p) => api(core, m, p), driver as 'loop-btrfs');
    if (skip) throw new Error(skip);
    progress(`workspace (${driver}): an empty box and one with 1 GiB in /workspace, a raw container with 1 GiB`);
    for (const name of ['wsempty', 'wsfull']) {
      await expectJson(await call('POST', '/boxes', { name }), 201, `create ${name}`);
      own.boxes.add(name);
    }
    const fill = await expectJson<{ exit_code: number }>(
      await call('POST', '/boxes/wsfull/exec', { command: FILL_1GIB, timeout_s: 600 }),
      200,
      'fill',
    );
    if (fill.exit_code !== 0) throw new Error('writing 1 GiB in /workspace failed');
    rawId = await rawCreateAndStart(ctx.image, `boxdesk-bench-raw-ws-${Date.now().toString(36)}`);
    ctx.rawIds.add(rawId);
    await rawExec(rawId, ['sh', '-c', 'dd if=/dev/urandom of=/root/data bs=1M count=1024 2>/dev/null && sync']);

    let i = 0;
    const fork = (source: string) => async () => {
      const name = `${source}-f${i++}`;
      const { ms } = await timed(async () =>
        expectJson(await call('POST', '/boxes', { name, fork: source }), 201, `fork ${name}`),
      );
      own.boxes.add(name);
      await expectJson(await call('DELETE', `/boxes/${name}`), 204, `delete ${name}`);
      own.boxes.delete(name);
      return ms;
    };
    const snapshot = (source: string) => async () => {
      const { ms, value } = await timed(async () =>
        expectJson<{ id: string }>(await call('POST', `/boxes/${source}/snapshots`, {}), 201, 'snapshot'),
      );
      await expectJson(await call('DELETE', `/snapshots/${value.id}`), 204, 'delete snapshot');
      return ms;
    };
    const rawFork = async () => {
      const { ms, value } = await timed(async () => {
        const { Id } = (await docker.getContainer(rawId!).commit({ pause: true })) as { Id: string };
        rawImages.push(Id);
        const c = await docker.createContainer(rawContainerSpec(Id, `boxdesk-bench-raw-wsf-${Date.now()}`));
        await c.start();
        return c.id;
      });
      await rawRemove(value);
      return ms;
    };

    return await measure(n, driver, fork, snapshot, rawFork);
  } finally {
    for (const name of own.boxes) await call('DELETE', `/boxes/${name}`).catch(() => undefined);
    await core.stop();
    if (rawId) {
      await rawRemove(rawId).catch(() => undefined);
      ctx.rawIds.delete(rawId);
    }
    for (const id of rawImages)
      await docker
        .getImage(id)
        .remove()
        .catch(() => undefined);
  }
}

type Round = () => Promise<number>;

/** The three rows, each from alternating rounds. */
async function measure(
  n: number,
  driver: string,
  fork: (source: string) => Round,
  snapshot: (source: string) => Round,
  rawFork: Round,
): Promise<ScenarioResult[]> {
  progress(`workspace (${driver}): fork with 1 GiB vs empty, n=${n}`);
  const forks = await alternate(n, fork('wsfull'), fork('wsempty'));
  progress(`workspace (${driver}): snapshot with 1 GiB vs empty, n=${n}`);
  const snaps = await alternate(n, snapshot('wsfull'), snapshot('wsempty'));
  const rawN = Math.min(n, 3);
  progress(`workspace (${driver}): fork with 1 GiB vs raw commit+create+start of 1 GiB, n=${rawN}`);
  const vsRaw = await alternate(rawN, fork('wsfull'), rawFork);
  const forkRow = ratioResult(`box fork: 1 GiB in /workspace vs empty (${driver})`, forks, 1.2, [
    'ours = fork with 1 GiB, raw = fork of an empty box',
  ]);
  const snapRow = ratioResult(`box snapshot: 1 GiB in /workspace vs empty (${driver})`, snaps, 1.2, [
    'ours = snapshot with 1 GiB, raw = snapshot of an empty box',
  ]);
  const rawRow = ratioResult(`box fork of 1 GiB vs raw engine commit of 1 GiB (${driver})`, vsRaw, 0.1, [
    'raw = commit (paused) + create + start of a container with 1 GiB in its root',
  ]);
  return [forkRow, snapRow, rawRow];
}

export const workspaceForks: BenchScenario = { name: 'box workspace fork and snapshot', run };
