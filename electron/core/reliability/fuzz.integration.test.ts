import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { removeInstanceLeftovers, instanceIdOf } from '../../../test-support/reliability';
import { describeRequest, ResponseChecker, send } from '../../../test-support/fuzz-runner';
import { requestFor, type FuzzCallers, type FuzzRequest } from '../../../test-support/openapi-fuzz';
import { operationsOf, type Operation } from '../../../test-support/openapi-operations';

// The API fuzzer: every operation of the served OpenAPI document gets requests generated
// from its own schemas — valid ones, and ones broken in one place (wrong types, huge and
// unicode strings, edge numbers, unknown and missing fields, hostile path segments, odd
// content types, bodies on routes that take none, paths below an operation's that no
// route serves, no or a bogus token, and a token restricted to another project). No
// answer may be a 5xx; every error must be a problem document with a status the
// operation documents; every 2xx body must match its documented schema; a body on a
// route that takes none is refused; the restricted token is never told another
// project's names. The core serves the window (--ui-dir), as `npm start` runs it, and
// the window never answers for /v1. A fixed seed runs every time, plus one new seed per
// run; a failure prints the seed that reproduces it (FUZZ_SEED=… runs only that seed).

const FIXED_SEED = 20261122;
const RANDOM_SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/**
 * About this many requests per run in all (both seeds), spread over however many operations are
 * served. The new seed of every run explores further than any one run's budget: 2,000 (8 per
 * operation and run, for 85 operations) took 113 s beside another file, where 3,060 had taken
 * 150 s in a CI run; FUZZ_REQUESTS=20000 explores a seed more deeply by hand.
 */
const TOTAL_REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2000);
/** Valid creates per operation and seed: the fuzzer makes a few boxes and tokens, not hundreds. */
const CREATE_BUDGET = 2;
/** Requests in flight at once in the racing run. */
const CONCURRENCY = 8;
const PROJECT = 'fuzz';
const POOL = { project: [PROJECT], name: ['fz-run', 'fz-stop', 'fz-none'] };
/** The restricted token's project, and a domain a box of PROJECT holds (so its publishes collide). */
const OTHER = 'fzother';
const TAKEN_DOMAIN = 'fz-taken.test';

let core: CoreProcess;
let callers: FuzzCallers;
let operations: Operation[];
const uiDir = tempDataDir('boxdesk-fuzz-ui-');
const checker = new ResponseChecker();
const totals = { requests: 0, fiveXx: 0, byStatus: new Map<number, number>(), cut: 0, created: 0 };

before(async () => {
  fs.writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>window</title>');
  core = await startCoreProcess({ args: ['--rate-limit', '0', '--ui-dir', uiDir] });
  const restricted = await api(core, 'POST', '/v1/tokens', { name: 'fuzz-other', scopes: ['admin'], project: OTHER });
  assert.equal(restricted.status, 201);
  callers = {
    admin: { token: core.token, pool: POOL },
    restricted: {
      token: ((await restricted.json()) as { token: string }).token,
      pool: { project: [OTHER], name: ['fz-other'] },
      hidden: [`"${PROJECT}"`, 'fz-run', 'fz-stop'],
      bodyValues: { domains: [[TAKEN_DOMAIN]], port: [8080] },
    },
  };
  const doc = (await (await api(core, 'GET', '/v1/openapi.json')).json()) as Parameters<typeof operationsOf>[0];
  operations = operationsOf(doc);
});

after(async () => {
  console.log(
    `fuzz: ${totals.requests} requests over ${operations?.length ?? 0} operations, ${totals.fiveXx} 5xx, ${totals.cut} streams cut, ${totals.created} created; statuses ${JSON.stringify(Object.fromEntries([...totals.byStatus].sort(([a], [b]) => a - b)))}`,
  );
  fs.rmSync(uiDir, { recursive: true, force: true });
  if (!core) return;
  const instance = instanceIdOf(core.dataDir);
  await core.stop();
  await removeInstanceLeftovers(instance);
});

async function ensurePool(): Promise<void> {
  for (const [project, name, want] of [
    [PROJECT, 'fz-run', 'running'],
    [PROJECT, 'fz-stop', 'stopped'],
    [OTHER, 'fz-other', 'running'],
  ] as const) {
    const P = `/v1/projects/${project}/boxes`;
    let res = await api(core, 'GET', `${P}/${name}`);
    if (res.status === 404) res = await api(core, 'POST', P, { name });
    const box = (await res.json()) as { status: string };
    if (want === 'stopped' && box.status === 'running') await api(core, 'POST', `${P}/${name}/stop`);
    if (want === 'running' && box.status === 'stopped') await api(core, 'POST', `${P}/${name}/resume`);
  }
  // A domain of PROJECT's that the restricted token's publishes try to take.
  const run = (await (await api(core, 'GET', `/v1/projects/${PROJECT}/boxes/fz-run`)).json()) as {
    published_domains?: string[] | null;
  };
  if (!run.published_domains?.includes(TAKEN_DOMAIN))
    await api(core, 'POST', `/v1/projects/${PROJECT}/boxes/fz-run/publish`, { port: 8080, domains: [TAKEN_DOMAIN] });
}

/** Requests per operation and run (three runs: fixed seed, new seed, concurrent): the budget shared out, 8 to 80 each. */
function perOperation(): number {
  return Math.max(8, Math.min(80, Math.ceil(TOTAL_REQUESTS / 3 / operations.length)));
}

function hash(text: string): number {
  let h = 0;
  for (const ch of text) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h >>> 0;
}

/**
 * A base's warm count above 1 becomes 1: the core would make that many containers in the
 * background (up to 32), which takes the CPU from every test running beside this one. The
 * count's range is still fuzzed: 0, 1 and values out of range (33, -1, 2.5) go as generated.
 */
function warmCapped(op: Operation, req: FuzzRequest): FuzzRequest {
  const json = req.json as { warm?: unknown } | null | undefined;
  if (op.id !== 'PUT /v1/bases/{name}' || typeof json?.warm !== 'number') return req;
  if (!Number.isInteger(json.warm) || json.warm <= 1 || json.warm > 32) return req;
  const capped = { ...json, warm: 1 };
  return { ...req, json: capped, body: JSON.stringify(capped), kind: `${req.kind}, warm capped at 1` };
}

/** Creates beyond the budget get an unknown field, so the server must refuse them (400) without making anything. */
function capped(op: Operation, req: FuzzRequest, created: number): FuzzRequest {
  const makes = Object.hasOwn(op.responses, '201');
  const closed =
    op.body?.content['application/json'] &&
    (op.body.content['application/json'] as { additionalProperties?: unknown }).additionalProperties === false;
  if (
    !makes ||
    created < CREATE_BUDGET ||
    !closed ||
    !req.json ||
    typeof req.json !== 'object' ||
    Array.isArray(req.json)
  )
    return req;
  const json = { ...(req.json as object), __fuzz_over_budget: true };
  return { ...req, json, body: JSON.stringify(json), kind: `${req.kind}, over the create budget` };
}

/** Sends one request and judges the answer; what is wrong goes to `failures`. */
async function exercise(op: Operation, req: FuzzRequest, failures: string[]): Promise<number | null> {
  totals.requests++;
  let problems: string[];
  let status: number | null = null;
  try {
    const res = await send(core.url, req);
    status = res.status;
    totals.byStatus.set(res.status, (totals.byStatus.get(res.status) ?? 0) + 1);
    if (res.status >= 500) totals.fiveXx++;
    if (res.cut) totals.cut++;
    if (res.status === 201) totals.created++;
    problems = checker.check(op, res, req).map((p) => `${p} — body ${res.body.toString('utf8').slice(0, 200)}`);
  } catch (err) {
    problems = [`no answer: ${(err as Error).message}`];
  }
  if (coreExited())
    problems.push(`the core exited (${core.child.exitCode ?? core.child.signalCode}):\n${core.output().slice(-2000)}`);
  for (const p of problems) failures.push(`${describeRequest(req)}\n    → ${p}`);
  return status;
}

function coreExited(): boolean {
  return core.child.exitCode !== null || core.child.signalCode !== null;
}

/**
 * Every operation's generated requests, `concurrency` at a time (1: one after another, so a
 * seed replays the same sequence; more: the same kind of requests racing on the same boxes).
 */
async function fuzz(seed: number, concurrency = 1): Promise<string[]> {
  const failures: string[] = [];
  for (const op of operations) {
    await ensurePool();
    const requests = fc.sample(requestFor(op, callers), {
      seed: (seed + hash(op.id)) | 0,
      numRuns: perOperation(),
    });
    let created = 0;
    for (let i = 0; i < requests.length; i += concurrency) {
      const batch = requests
        .slice(i, i + concurrency)
        .map((generated) => capped(op, warmCapped(op, generated), created));
      const statuses = await Promise.all(batch.map((req) => exercise(op, req, failures)));
      created += statuses.filter((st) => st === 201).length;
      if (coreExited()) return failures;
    }
  }
  return failures;
}

/** The failures, one example per kind of complaint first, so one bug does not hide the others. */
function report(seed: number, failures: string[]): string {
  const byKind = new Map<string, string>();
  for (const f of failures) {
    const kind = (f.split('→ ')[1] ?? f)
      .replace(/ — body[\s\S]*/, '')
      .replace(/\d+/g, 'N')
      .slice(0, 120);
    if (!byKind.has(kind)) byKind.set(kind, f);
  }
  return `${failures.length} failing answers (${byKind.size} kinds) with seed ${seed}; reproduce with FUZZ_SEED=${seed} node --import tsx --test electron/core/reliability/fuzz.integration.test.ts\n${[...byKind.values()].slice(0, 30).join('\n')}`;
}

test(
  `the API answers generated requests within its contract (fixed seed ${FIXED_SEED})`,
  { skip: process.env.FUZZ_SEED ? 'FUZZ_SEED given: only that seed runs' : false },
  async () => {
    const failures = await fuzz(FIXED_SEED);
    assert.ok(failures.length === 0, report(FIXED_SEED, failures));
  },
);

test(`the API answers generated requests within its contract (seed ${RANDOM_SEED}, new each run)`, async () => {
  console.log(`fuzz seed ${RANDOM_SEED} (reproduce: FUZZ_SEED=${RANDOM_SEED})`);
  const failures = await fuzz(RANDOM_SEED);
  assert.ok(failures.length === 0, report(RANDOM_SEED, failures));
});

test(`the API answers generated requests within its contract when they race, ${CONCURRENCY} at a time (seed ${RANDOM_SEED + 1})`, async () => {
  const failures = await fuzz(RANDOM_SEED + 1, CONCURRENCY);
  assert.ok(
    failures.length === 0,
    report(RANDOM_SEED + 1, failures).replace(/FUZZ_SEED=(\d+)/, () => `FUZZ_SEED=${RANDOM_SEED}`),
  );
});
