import fs from 'node:fs';
import os from 'node:os';
import type { ScenarioResult } from '../report';
import { progress, summarize } from '../stats';
import { api } from '../../test-support/core-process';
import { createBox, deleteBox, expectJson, sleep, type BenchContext, type BenchScenario } from './context';

const BOXES = 20;
const WINDOW_S = 20;
const SETTLE_S = 5;
const TICK_MS = 1000 / 100; // USER_HZ: /proc's CPU times are in hundredths of a second on Linux

/** The engine's daemons on this machine (dockerd, containerd), found by their command name in /proc. */
function enginePids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'dockerd' || comm === 'containerd') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** User + system CPU of a process so far, in ms (0 once it is gone). */
function cpuMs(pid: number): number {
  try {
    // Fields after the command (which may hold spaces, so split after its closing parenthesis).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
  } catch {
    return 0;
  }
}

/** CPU used over WINDOW_S seconds, as a percentage of one core, by the core and by the engine. */
async function cpuWindow(corePid: number): Promise<{ core: number; engine: number }> {
  const engine = enginePids();
  const total = () => engine.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const start = { core: cpuMs(corePid), engine: total(), at: performance.now() };
  await sleep(WINDOW_S * 1000);
  const ms = performance.now() - start.at;
  return {
    core: ((cpuMs(corePid) - start.core) / ms) * 100,
    engine: ((total() - start.engine) / ms) * 100,
  };
}

/**
 * The idle cost: the core's and the engine's CPU over a quiet window with 20 paused
 * boxes, against the same window with none of them, before and after. Reported, not judged: the engine is shared
 * with whatever else runs on this machine, and its figure includes that.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const pid = ctx.core.child.pid!;
  progress(`idle cost: ${WINDOW_S} s without boxes, then ${WINDOW_S} s with ${BOXES} paused boxes`);
  await sleep(SETTLE_S * 1000);
  const none = await cpuWindow(pid);
  const names = Array.from({ length: BOXES }, (_, i) => `idle${i}`);
  for (let i = 0; i < names.length; i += 4) {
    await Promise.all(
      names.slice(i, i + 4).map(async (name) => {
        await createBox(ctx, name);
        const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${name}/pause`);
        await expectJson(res, 200, `pause ${name}`);
      }),
    );
  }
  await sleep(SETTLE_S * 1000);
  const paused = await cpuWindow(pid);
  progress('idle cost: deleting the paused boxes, then a last window without them');
  for (const name of names) await deleteBox(ctx, name);
  await sleep(SETTLE_S * 1000);
  const after = await cpuWindow(pid);
  const load = os.loadavg()[0]!.toFixed(1);
  // Without boxes before and after: the paused window is compared with their mean, and both show the drift.
  const row = (who: 'core' | 'engine', what: string): ScenarioResult => {
    const without = (none[who] + after[who]) / 2;
    return {
      name: `idle: ${who} CPU, ${BOXES} paused boxes vs none`,
      unit: '% of a core',
      n: 1,
      ours: summarize([paused[who]]),
      raw: summarize([none[who], after[who]]),
      ratioKind: 'percentage points added',
      ratio: paused[who] - without,
      target: 'reported',
      verdict: '—',
      notes: [
        `${what}; ${WINDOW_S} s windows: none ${none[who].toFixed(2)}, ${BOXES} paused ${paused[who].toFixed(2)}, none again ${after[who].toFixed(2)}; load average ${load} at the end`,
      ],
      cells: { ours: paused[who].toFixed(2), raw: `${none[who].toFixed(2)}, ${after[who].toFixed(2)}` },
    };
  };
  return [
    row('core', 'the core process'),
    row('engine', 'dockerd and containerd, shared with everything else on this engine'),
  ];
}

export const idleCost: BenchScenario = { name: 'idle cost', run };
