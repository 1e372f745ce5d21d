import { spreadCells, type ScenarioResult } from '../report';
import { containerOfBox, rawTtyStream } from '../raw-engine';
import { alternate, progress, summarize } from '../stats';
import { coreTtyStream } from '../ws-session';
import { createBox, execInBox, type BenchContext, type BenchScenario } from './context';

const TARGET = 0.8;
const RUNS = 3;
const SIZE = 50 * 1024 * 1024;
const BOX = 'tput';
const COMMAND = ['cat', '/tmp/big'];

const mibPerSecond = (bytes: number, ms: number) => bytes / 1024 / 1024 / (ms / 1000);

/** `cat` of a 50 MiB file on a TTY: the exec WebSocket (tty=1) against a raw hijacked TTY exec in the same container. */
async function run(ctx: BenchContext): Promise<ScenarioResult> {
  await createBox(ctx, BOX);
  // No newlines in the file, so the TTY's output processing adds nothing and the byte count is exact.
  const made = await execInBox(
    ctx,
    BOX,
    ['sh', '-c', `head -c ${SIZE} /dev/zero | tr '\\0' a > /tmp/big && wc -c < /tmp/big`],
    60,
  );
  if (made.exit_code !== 0 || Number(made.stdout.trim()) !== SIZE)
    throw new Error(`could not make /tmp/big: ${JSON.stringify(made)}`);
  const containerId = await containerOfBox(ctx.project, BOX);
  const notes: string[] = [];
  const short = { ours: 0, raw: 0 };
  const ours = async () => {
    const r = await coreTtyStream(ctx, BOX, COMMAND, SIZE);
    if (r.bytes !== SIZE) {
      short.ours++;
      notes.push(`core delivered ${r.bytes} of ${SIZE} bytes (exit ${r.exitCode})`);
    }
    return mibPerSecond(r.bytes, r.ms);
  };
  const raw = async () => {
    const r = await rawTtyStream(containerId, COMMAND, SIZE);
    if (r.bytes !== SIZE) {
      short.raw++;
      notes.push(`raw delivered ${r.bytes} of ${SIZE} bytes`);
    }
    return mibPerSecond(r.bytes, r.ms);
  };
  progress(`console throughput: 1 warm-up + ${RUNS} runs each of cat 50 MiB, alternating`);
  await alternate(1, ours, raw);
  notes.length = 0;
  short.ours = short.raw = 0;
  const last = { ours: 0, raw: 0 };
  const runs = await alternate(
    RUNS,
    async () => (last.ours = await ours()),
    async () => (last.raw = await raw()),
    (i) => progress(`  run ${i + 1}/${RUNS}: core ${last.ours.toFixed(0)} MiB/s, raw ${last.raw.toFixed(0)} MiB/s`),
  );
  const o = summarize(runs.ours);
  const r = summarize(runs.raw);
  const ratio = o.p50 / r.p50;
  return {
    name: 'console throughput (tty)',
    unit: 'MiB/s',
    n: RUNS,
    ours: o,
    raw: r,
    ratioKind: 'ours/raw median',
    ratio,
    target: `≥ ${TARGET}`,
    verdict: ratio >= TARGET && short.ours === 0 ? 'PASS' : 'MISS',
    notes: [
      `time from WebSocket connect / exec create to the last of ${SIZE} bytes; cells are median (min–max) of ${RUNS}`,
      ...notes,
    ],
    cells: spreadCells(o, r),
  };
}

export const consoleThroughput: BenchScenario = { name: 'console throughput', run };
