import { ratioResult, type ScenarioResult } from '../report';
import { rawCreateAndStart, rawExec } from '../raw-engine';
import { alternate, percentile, progress, timed } from '../stats';
import { createBox, execInBox, type BenchContext, type BenchScenario } from './context';

const TARGET = 0.2;
const WARMUP = 3;
const BOX = 'exec';

const COMMANDS: { label: string; command: string[]; stdout: string }[] = [
  { label: "exec ['true']", command: ['true'], stdout: '' },
  { label: "exec ['echo','hi']", command: ['echo', 'hi'], stdout: 'hi\n' },
];

/** POST /exec on a box against exec create + start + inspect on a raw container of the same spec. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  await createBox(ctx, BOX);
  const rawId = await rawCreateAndStart(ctx.image, `boxdesk-bench-raw-exec-${Date.now().toString(36)}`);
  ctx.rawIds.add(rawId);
  const results: ScenarioResult[] = [];
  for (const { label, command, stdout } of COMMANDS) {
    let reinspected = 0;
    const ours = async () => {
      const { ms, value } = await timed(() => execInBox(ctx, BOX, command));
      if (value.exit_code !== 0 || value.stdout !== stdout)
        throw new Error(`${label} via core: exit ${value.exit_code}, stdout ${JSON.stringify(value.stdout)}`);
      return ms;
    };
    const raw = async () => {
      const { ms, value } = await timed(() => rawExec(rawId, command));
      if (value.exitCode !== 0) throw new Error(`${label} raw: exit ${value.exitCode}`);
      if (value.inspects > 1) reinspected++;
      return ms;
    };
    progress(`${label}: warming up, then ${ctx.n} runs each, alternating`);
    await alternate(WARMUP, ours, raw);
    reinspected = 0;
    const runs = await alternate(ctx.n, ours, raw);
    const p50Difference = percentile(runs.ours, 50) - percentile(runs.raw, 50);
    results.push(
      ratioResult(`${label} round trip`, runs, TARGET, [
        `p50 difference ${p50Difference.toFixed(1)} ms`,
        // The core sleeps 5 ms before inspecting again (ExecService.exitCode); the raw client asks again at once.
        `the engine still reported the exec running after end of output in ${reinspected}/${ctx.n} raw runs`,
      ]),
    );
  }
  return results;
}

export const execRoundTrip: BenchScenario = { name: 'exec round trip', run };
