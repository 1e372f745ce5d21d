/**
 * `npm run bench`: the core against the raw Engine API, in the same run.
 * Starts a fresh core process, runs each scenario with core and raw calls
 * alternating, prints a table and writes bench/results/<timestamp>.json.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, startCoreProcess, TEST_IMAGE } from '../test-support/core-process';
import { docker, rawRemove, removeBenchContainers } from './raw-engine';
import { renderTable, writeReport, type BenchReport, type ScenarioResult } from './report';
import { consoleThroughput } from './scenarios/console-throughput';
import type { BenchContext } from './scenarios/context';
import { execRoundTrip } from './scenarios/exec-round-trip';
import { fileTransfer } from './scenarios/file-transfer';
import { lifecycle } from './scenarios/lifecycle';
import { publishProxy } from './scenarios/publish-proxy';
import { rssUnderFlood } from './scenarios/rss-flood';
import { serviceDeploy } from './scenarios/service-deploy';
import { snapshotAndFork } from './scenarios/snapshot-fork';
import { storageOps } from './scenarios/storage';
import { uiEcho } from './scenarios/ui-echo';
import { uiList } from './scenarios/ui-list';
import { UI_DIR, ensureRendererBuilt } from '../test-support/chromium';
import { volumeCopies } from './scenarios/volume-copies';
import { progress } from './stats';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return n;
}

const SCENARIOS: { name: string; run: (ctx: BenchContext) => Promise<ScenarioResult | ScenarioResult[]> }[] = [
  { name: 'create→running + delete', run: lifecycle },
  { name: 'exec round trip', run: execRoundTrip },
  { name: 'console throughput', run: consoleThroughput },
  { name: 'rss under yes flood', run: rssUnderFlood },
  { name: 'file transfer', run: fileTransfer },
  { name: 'snapshot and fork', run: snapshotAndFork },
  { name: 'ui list and live status', run: uiList },
  { name: 'ui keystroke echo', run: uiEcho },
  { name: 'publish proxy', run: publishProxy },
  { name: 'volume snapshot and backup', run: volumeCopies },
  { name: 'service blue/green deploy', run: serviceDeploy },
  { name: 'store snapshot and clone', run: storageOps },
];

async function cleanup(ctx: BenchContext): Promise<void> {
  for (const name of [...ctx.boxes]) {
    await api(ctx.core, 'DELETE', `/v1/projects/${ctx.project}/boxes/${name}`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }
  for (const id of [...ctx.rawIds]) await rawRemove(id).catch(() => undefined);
  await ctx.core.stop();
  // Whatever the API could not delete, and every raw container, goes behind the core's back.
  const removed = await removeBenchContainers(ctx.project);
  if (removed) progress(`cleanup: removed ${removed} leftover container(s) directly`);
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const n = positiveInt('BENCH_N', 30);
  const floodSeconds = positiveInt('BENCH_FLOOD_S', 30);
  const graceSeconds = 3;
  const version = await docker.version();
  await docker.getImage(TEST_IMAGE).inspect();
  const stale = await removeBenchContainers();
  if (stale) progress(`removed ${stale} container(s) left by an earlier run`);

  progress(`starting a fresh core (image ${TEST_IMAGE}, n=${n}, flood ${floodSeconds} s)`);
  // A short session grace only shortens the wait before the flood check's sweep; it is not on any timed path.
  // The core also serves the UI, for the window's scenarios.
  ensureRendererBuilt();
  const core = await startCoreProcess({ args: ['--session-grace', String(graceSeconds), '--ui-dir', UI_DIR] });
  const ctx: BenchContext = {
    core,
    project: `bench${Date.now().toString(36)}`,
    image: TEST_IMAGE,
    n,
    floodSeconds,
    graceSeconds,
    rawIds: new Set(),
    boxes: new Set(),
  };
  const scenarios: ScenarioResult[] = [];
  let error: string | undefined;
  try {
    // BENCH_ONLY=ui runs only the scenarios whose name contains that text.
    const only = process.env.BENCH_ONLY;
    for (const s of SCENARIOS.filter((x) => !only || x.name.includes(only))) {
      try {
        const result = await s.run(ctx);
        scenarios.push(...(Array.isArray(result) ? result : [result]));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        progress(`${s.name} FAILED: ${message}`);
        error = error ? `${error}; ${s.name}: ${message}` : `${s.name}: ${message}`;
        scenarios.push({
          name: s.name,
          unit: '',
          n: 0,
          ours: null,
          raw: null,
          ratioKind: '',
          ratio: null,
          target: '',
          verdict: 'MISS',
          notes: [`failed: ${message}`],
        });
      }
    }
  } finally {
    progress('cleaning up');
    await cleanup(ctx);
  }

  const finishedAt = new Date();
  const report: BenchReport = {
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    duration_s: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    environment: {
      node: process.version,
      engine: `docker ${version.Version} (API ${version.ApiVersion})`,
      image: TEST_IMAGE,
      cpus: os.cpus().length,
      memory_mib: Math.round(os.totalmem() / 1024 / 1024),
      platform: `${os.platform()} ${os.release()}`,
    },
    parameters: { n, flood_seconds: floodSeconds, session_grace_seconds: graceSeconds },
    scenarios,
    ...(error ? { error } : {}),
  };
  const file = writeReport(RESULTS_DIR, report);
  process.stdout.write(
    `\nBoxdesk bench — ${report.environment.engine}, ${report.environment.cpus} CPUs, n=${n}, ${report.duration_s.toFixed(0)} s\n\n${renderTable(scenarios)}\n\nresults: ${path.relative(process.cwd(), file)}\n`,
  );
  return error ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    void removeBenchContainers().finally(() => process.exit(1));
  },
);
