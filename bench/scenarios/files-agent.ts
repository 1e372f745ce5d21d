import crypto from 'node:crypto';
import { api, startCoreProcess, type CoreProcess } from '../../test-support/core-process';
import { filesUrl, getFile, putFile } from '../file-calls';
import { rateResult, ratioResult, type ScenarioResult } from '../report';
import { alternate, progress, timed } from '../stats';
import { createBox, expectJson, positiveIntFromEnv, type BenchContext, type BenchScenario } from './context';

const BOX = 'files-agent';
const ENGINE_BOX = 'files-engine';
const SMALL = 1024;
const LARGE = 64 * 1024 * 1024;
const TARGET_SMALL = 0.5;
const TARGET_LARGE = 1.0;

type Side = { core: Pick<CoreProcess, 'url' | 'token'>; box: string };

/** PUT of `bytes` to the box. */
const write = (ctx: BenchContext, side: Side, boxPath: string, bytes: Buffer): Promise<void> =>
  putFile(side.core.token, filesUrl(side.core, ctx.project, side.box, boxPath), bytes, bytes.length);

/** GET of a file, its bytes counted and dropped. */
const read = (ctx: BenchContext, side: Side, boxPath: string, size: number): Promise<void> =>
  getFile(side.core.token, filesUrl(side.core, ctx.project, side.box, boxPath), async (res) => {
    let n = 0;
    for await (const chunk of res) n += (chunk as Buffer).length;
    if (n !== size) throw new Error(`read: ${n} of ${size} bytes`);
  });

const mibPerSecond = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

const rate = (name: string, runs: { ours: number[]; raw: number[] }): ScenarioResult =>
  rateResult(name, runs, 'agent/engine median', TARGET_LARGE, [
    'through the files API; the engine side is a core with BOXDESK_NO_AGENT=1 (docker archive calls)',
  ]);

/**
 * Files through the box agent against files through the engine's archive calls, both through the
 * API in the same run: a second core with BOXDESK_NO_AGENT=1 serves a box of its own.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const large = crypto.randomBytes(LARGE);
  const small = crypto.randomBytes(SMALL);
  const bigRuns = positiveIntFromEnv('BENCH_FILES_LARGE_N', 5);
  progress('files through the agent: starting a second core without the agent');
  const engineCore = await startCoreProcess({ env: { BOXDESK_NO_AGENT: '1' } });
  const agent: Side = { core: ctx.core, box: BOX };
  const engine: Side = { core: engineCore, box: ENGINE_BOX };
  try {
    await createBox(ctx, BOX);
    await expectJson(
      await api(engineCore, 'POST', `/v1/projects/${ctx.project}/boxes`, { name: ENGINE_BOX }),
      201,
      'create the engine-path box',
    );
    const ms = (fn: () => Promise<void>) => async () => (await timed(fn)).ms;
    const rateOf = (fn: () => Promise<void>) => async () => mibPerSecond(LARGE, (await timed(fn)).ms);
    const results: ScenarioResult[] = [];
    const on = (side: Side) => ({
      writeSmall: ms(() => write(ctx, side, '/tmp/small.bin', small)),
      readSmall: ms(() => read(ctx, side, '/tmp/small.bin', SMALL)),
      writeLarge: rateOf(() => write(ctx, side, '/tmp/large.bin', large)),
      readLarge: rateOf(() => read(ctx, side, '/tmp/large.bin', LARGE)),
    });
    const a = on(agent);
    const e = on(engine);
    const note = 'through the files API; the engine side is a core with BOXDESK_NO_AGENT=1 (docker archive calls)';
    for (const [label, key] of [
      ['file write 1 KiB', 'writeSmall'],
      ['file read 1 KiB', 'readSmall'],
    ] as const) {
      progress(`${label}: 3 warm-ups, then ${ctx.n} each, agent and engine alternating`);
      await alternate(3, a[key], e[key]);
      results.push(
        ratioResult(`${label} (agent vs engine)`, await alternate(ctx.n, a[key], e[key]), TARGET_SMALL, [note]),
      );
    }
    for (const [label, key] of [
      ['file write 64 MiB', 'writeLarge'],
      ['file read 64 MiB', 'readLarge'],
    ] as const) {
      progress(`${label}: 1 warm-up, then ${bigRuns} each, alternating`);
      await alternate(1, a[key], e[key]);
      results.push(rate(`${label} (agent vs engine)`, await alternate(bigRuns, a[key], e[key])));
    }
    return results;
  } finally {
    await api(engineCore, 'DELETE', `/v1/projects/${ctx.project}/boxes/${ENGINE_BOX}`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
    await engineCore.stop();
  }
}

export const filesAgent: BenchScenario = { name: 'files agent', run };
