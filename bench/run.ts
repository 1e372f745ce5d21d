/**
 * `npm run bench`: the core against the raw Engine API, in the same run.
 * Starts a fresh core process, runs each scenario with core and raw calls
 * alternating, prints a table and writes bench/results/<timestamp>.json.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UI_DIR, ensureRendererBuilt } from '../test-support/chromium';
import { api, startCoreProcess, TEST_IMAGE } from '../test-support/core-process';
import { docker, rawRemove, removeBenchContainers } from './raw-engine';
import { renderTable, writeReport, type BenchReport, type ScenarioResult } from './report';
import { positiveIntFromEnv, type BenchContext, type BenchScenario } from './scenarios/context';
import { SCENARIOS } from './scenarios/index';
import { progress } from './stats';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

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

/** A failed scenario: a MISS row saying why, so the report shows it beside the rest. */
function failedRow(name: string, message: string): ScenarioResult {
  return {
    name,
    unit: '',
    n: 0,
    ours: null,
    raw: null,
    ratioKind: '',
    ratio: null,
    target: '',
    verdict: 'MISS',
    notes: [`failed: ${message}`],
  };
}

/** Runs each scenario in turn; one that fails is reported and the rest still run. */
async function runScenarios(
  ctx: BenchContext,
  scenarios: readonly BenchScenario[],
): Promise<{ scenarios: ScenarioResult[]; error?: string }> {
  const results: ScenarioResult[] = [];
  const errors: string[] = [];
  for (const s of scenarios) {
    try {
      const result = await s.run(ctx);
      results.push(...(Array.isArray(result) ? result : [result]));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      progress(`${s.name} FAILED: ${message}`);
      errors.push(`${s.name}: ${message}`);
      results.push(failedRow(s.name, message));
    }
  }
  return { scenarios: results, ...(errors.length ? { error: errors.join('; ') } : {}) };
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const n = positiveIntFromEnv('BENCH_N', 30);
  const floodSeconds = positiveIntFromEnv('BENCH_FLOOD_S', 30);
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
  let outcome: { scenarios: ScenarioResult[]; error?: string };
  try {
    // BENCH_ONLY=ui runs only the scenarios whose name contains that text.
    const only = process.env.BENCH_ONLY;
    outcome = await runScenarios(
      ctx,
      SCENARIOS.filter((x) => !only || x.name.includes(only)),
    );
  } finally {
    progress('cleaning up');
    await cleanup(ctx);
  }
  const { scenarios, error } = outcome;

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
