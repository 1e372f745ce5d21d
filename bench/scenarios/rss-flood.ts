import fs from 'node:fs';
import type { ScenarioResult } from '../report';
import { containerOfBox, processNames } from '../raw-engine';
import { progress } from '../stats';
import { closed, openExecSocket } from '../ws-session';
import { createBox, type BenchContext } from './context';

const TARGET_MIB = 200;
const SAMPLE_MS = 250;
const BOX = 'flood';
/** The slow reader: reads for READ_MS out of every CYCLE_MS. */
const CYCLE_MS = 500;
const READ_MS = 20;

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
  return kb / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `yes` on a TTY through the exec WebSocket with a client that reads in short bursts, while sampling the core's RSS. */
export async function rssUnderFlood(ctx: BenchContext): Promise<ScenarioResult> {
  const pid = ctx.core.child.pid!;
  await createBox(ctx, BOX);
  const containerId = await containerOfBox(ctx.project, BOX);

  const before: number[] = [];
  for (let i = 0; i < 8; i++) {
    before.push(rssMiB(pid));
    await sleep(SAMPLE_MS);
  }
  const baseline = [...before].sort((a, b) => a - b)[Math.floor(before.length / 2)]!;
  progress(
    `rss flood: baseline ${baseline.toFixed(1)} MiB; yes for ${ctx.floodSeconds} s with a reader awake ${READ_MS} ms of every ${CYCLE_MS} ms`,
  );

  let received = 0;
  const ws = await openExecSocket(ctx, BOX, ['yes'], true, (data, isBinary) => {
    if (isBinary) received += data.length;
  });
  ws.pause();
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
        `  ${s} s: rss ${samples.at(-1)?.rss.toFixed(1)} MiB, client received ${(received / 1024 / 1024).toFixed(1)} MiB`,
      );
    }
  } finally {
    clearInterval(sampler);
    clearInterval(reader);
  }
  const peak = Math.max(baseline, ...samples.map((s) => s.rss));
  const growth = peak - baseline;

  // The user closes the window: the session lives on for the grace period, then its processes must die.
  ws.resume();
  ws.close(1000, 'bench done');
  await closed(ws, 5000);
  const closedAt = performance.now();
  const deadline = closedAt + (ctx.graceSeconds + 20) * 1000;
  let yesGoneAfter: number | null = null;
  let running: string[] = [];
  while (performance.now() < deadline) {
    running = await processNames(containerId);
    if (!running.includes('yes')) {
      yesGoneAfter = (performance.now() - closedAt) / 1000;
      break;
    }
    await sleep(500);
  }
  const after = rssMiB(pid);
  progress(
    `rss flood: peak ${peak.toFixed(1)} MiB (+${growth.toFixed(1)}); yes ${yesGoneAfter === null ? 'STILL RUNNING' : `gone ${yesGoneAfter.toFixed(1)} s after close`}`,
  );

  const pass = growth <= TARGET_MIB && yesGoneAfter !== null;
  return {
    name: 'rss under yes flood',
    unit: 'MiB',
    n: samples.length,
    ours: null,
    raw: null,
    ratioKind: '',
    ratio: null,
    target: `peak ≤ base+${TARGET_MIB}, yes killed`,
    verdict: pass ? 'PASS' : 'MISS',
    cells: { ours: `base ${baseline.toFixed(0)}, peak ${peak.toFixed(0)} (+${growth.toFixed(0)})`, raw: 'n/a' },
    notes: [
      `${ctx.floodSeconds} s flood, RSS (VmRSS of pid ${pid}) every ${SAMPLE_MS} ms; after close ${after.toFixed(0)} MiB`,
      `client received ${(received / 1024 / 1024).toFixed(1)} MiB while reading ${READ_MS} ms of every ${CYCLE_MS} ms`,
      yesGoneAfter === null
        ? `yes still running ${ctx.graceSeconds + 20} s after the socket closed (processes: ${running.join(' ')})`
        : `yes gone ${yesGoneAfter.toFixed(1)} s after the socket closed (core --session-grace ${ctx.graceSeconds})`,
    ],
    extra: {
      baseline_mib: baseline,
      peak_mib: peak,
      growth_mib: growth,
      after_close_mib: after,
      received_bytes: received,
      yes_gone_after_s: yesGoneAfter,
      samples,
    },
  };
}
