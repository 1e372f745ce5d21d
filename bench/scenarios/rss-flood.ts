import type WebSocket from 'ws';
import type { ScenarioResult } from '../report';
import { containerOfBox, processNames } from '../raw-engine';
import { progress } from '../stats';
import { closed, openExecSocket } from '../ws-session';
import { createBox, rssMiB, sleep, type BenchContext, type BenchScenario } from './context';

const TARGET_MIB = 200;
const SAMPLE_MS = 250;
const BOX = 'flood';
/** The slow reader: reads for READ_MS out of every CYCLE_MS. */
const CYCLE_MS = 500;
const READ_MS = 20;

/** The core's resident memory at rest: the median of a few samples. */
async function baselineRss(pid: number): Promise<number> {
  const before: number[] = [];
  for (let i = 0; i < 8; i++) {
    before.push(rssMiB(pid));
    await sleep(SAMPLE_MS);
  }
  return [...before].sort((a, b) => a - b)[Math.floor(before.length / 2)]!;
}

/** Reads `ws` in short bursts for the flood's length, sampling the core's RSS. */
async function flood(ctx: BenchContext, ws: WebSocket, pid: number, received: () => number) {
  const samples: { t: number; rss: number }[] = [];
  const t0 = performance.now();
  const sampler = setInterval(
    () => samples.push({ t: Math.round(performance.now() - t0), rss: rssMiB(pid) }),
    SAMPLE_MS,
  );
  const reader = setInterval(() => {
    ws.resume();
    setTimeout(() => ws.pause(), READ_MS);
  }, CYCLE_MS);
  try {
    for (let s = 0; s < ctx.floodSeconds;) {
      const step = Math.min(5, ctx.floodSeconds - s);
      await sleep(step * 1000);
      s += step;
      progress(
        `  ${s} s: rss ${samples.at(-1)?.rss.toFixed(1)} MiB, client received ${(received() / 1024 / 1024).toFixed(1)} MiB`,
      );
    }
  } finally {
    clearInterval(sampler);
    clearInterval(reader);
  }
  return samples;
}

/** Seconds from the socket's close until `yes` is gone from the box (null: still there after the grace + 20 s). */
async function yesGoneAfter(
  ctx: BenchContext,
  containerId: string,
): Promise<{ after: number | null; running: string[] }> {
  const closedAt = performance.now();
  const deadline = closedAt + (ctx.graceSeconds + 20) * 1000;
  let running: string[] = [];
  while (performance.now() < deadline) {
    running = await processNames(containerId);
    if (!running.includes('yes')) return { after: (performance.now() - closedAt) / 1000, running };
    await sleep(500);
  }
  return { after: null, running };
}

/** `yes` on a TTY through the exec WebSocket with a client that reads in short bursts, while sampling the core's RSS. */
async function run(ctx: BenchContext): Promise<ScenarioResult> {
  const pid = ctx.core.child.pid!;
  await createBox(ctx, BOX);
  const containerId = await containerOfBox(ctx.project, BOX);
  const baseline = await baselineRss(pid);
  progress(
    `rss flood: baseline ${baseline.toFixed(1)} MiB; yes for ${ctx.floodSeconds} s with a reader awake ${READ_MS} ms of every ${CYCLE_MS} ms`,
  );

  let received = 0;
  const ws = await openExecSocket(ctx, BOX, ['yes'], true, (data, isBinary) => {
    if (isBinary) received += data.length;
  });
  ws.pause();
  const samples = await flood(ctx, ws, pid, () => received);
  const peak = Math.max(baseline, ...samples.map((s) => s.rss));
  const growth = peak - baseline;

  // The user closes the window: the session lives on for the grace period, then its processes must die.
  ws.resume();
  ws.close(1000, 'bench done');
  await closed(ws, 5000);
  const yes = await yesGoneAfter(ctx, containerId);
  const after = rssMiB(pid);
  progress(
    `rss flood: peak ${peak.toFixed(1)} MiB (+${growth.toFixed(1)}); yes ${yes.after === null ? 'STILL RUNNING' : `gone ${yes.after.toFixed(1)} s after close`}`,
  );

  return {
    name: 'rss under yes flood',
    unit: 'MiB',
    n: samples.length,
    ours: null,
    raw: null,
    ratioKind: '',
    ratio: null,
    target: `peak ≤ base+${TARGET_MIB}, yes killed`,
    verdict: growth <= TARGET_MIB && yes.after !== null ? 'PASS' : 'MISS',
    cells: { ours: `base ${baseline.toFixed(0)}, peak ${peak.toFixed(0)} (+${growth.toFixed(0)})`, raw: 'n/a' },
    notes: [
      `${ctx.floodSeconds} s flood, RSS (VmRSS of pid ${pid}) every ${SAMPLE_MS} ms; after close ${after.toFixed(0)} MiB`,
      `client received ${(received / 1024 / 1024).toFixed(1)} MiB while reading ${READ_MS} ms of every ${CYCLE_MS} ms`,
      yes.after === null
        ? `yes still running ${ctx.graceSeconds + 20} s after the socket closed (processes: ${yes.running.join(' ')})`
        : `yes gone ${yes.after.toFixed(1)} s after the socket closed (core --session-grace ${ctx.graceSeconds})`,
    ],
    extra: {
      baseline_mib: baseline,
      peak_mib: peak,
      growth_mib: growth,
      after_close_mib: after,
      received_bytes: received,
      yes_gone_after_s: yes.after,
      samples,
    },
  };
}

export const rssUnderFlood: BenchScenario = { name: 'rss under yes flood', run };
