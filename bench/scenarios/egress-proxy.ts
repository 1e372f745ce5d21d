import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioResult } from '../report';
import { progress, summarize } from '../stats';
import { api, startCoreProcess, type CoreProcess } from '../../test-support/core-process';
import { egressClientBinary } from '../../test-support/egress-client';
import { startOutsideHost } from '../../test-support/outside-host';
import { selfSigned } from '../../test-support/test-certificate';
import { expectJson, type BenchContext, type BenchScenario } from './context';

const N = 300;
const ROUNDS = 3;
const BOX = 'egress';
const P = (project: string) => `/v1/projects/${project}/boxes`;

interface Run {
  latencies_ms: number[];
  seconds: number;
}

/** N sequential GETs by the Go client in the box (kept-alive connections): its latencies and requests/s. */
async function clientRun(core: CoreProcess, project: string, env: string, url: string): Promise<Run> {
  const res = await api(core, 'POST', `${P(project)}/${BOX}/exec`, {
    command: ['sh', '-c', `EGRESS_CLIENT_N=${N} ${env} /tmp/client ${url}`],
    timeout_s: 120,
  });
  const run = await expectJson<{ exit_code: number; stdout: string; stderr: string }>(res, 200, 'client');
  if (run.exit_code !== 0) throw new Error(`the client failed: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as Run;
}

async function put(core: CoreProcess, project: string, file: string, body: Buffer | string, mode: string) {
  const res = await fetch(`${core.url}${P(project)}/${BOX}/files?path=${file}&mode=${mode}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/octet-stream' },
    body,
  });
  if (!res.ok) throw new Error(`upload ${file}: ${res.status} ${await res.text()}`);
}

/** ROUNDS of each, the first of a round alternating. */
async function alternateRuns(ours: () => Promise<Run>, raw: () => Promise<Run>): Promise<{ ours: Run[]; raw: Run[] }> {
  const out = { ours: [] as Run[], raw: [] as Run[] };
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) out.ours.push(await ours());
    out.raw.push(await raw());
    if (i % 2 === 1) out.ours.push(await ours());
  }
  return out;
}

function rows(what: string, proxied: Run[], direct: Run[]): ScenarioResult[] {
  const lat = { ours: proxied.flatMap((r) => r.latencies_ms), raw: direct.flatMap((r) => r.latencies_ms) };
  const rps = { ours: proxied.map((r) => N / r.seconds), raw: direct.map((r) => N / r.seconds) };
  const l = { ours: summarize(lat.ours), raw: summarize(lat.raw) };
  const r = { ours: summarize(rps.ours), raw: summarize(rps.raw) };
  return [
    {
      name: `egress proxy: ${what} latency`,
      unit: 'ms',
      n: lat.ours.length,
      ...{ ours: l.ours, raw: l.raw, ratioKind: 'proxy/direct p50', ratio: l.ours.p50 / l.raw.p50 },
      target: 'reported',
      verdict: '—',
      notes: [`added p50: ${(l.ours.p50 - l.raw.p50).toFixed(2)} ms (sequential GETs from the box, kept alive)`],
    },
    {
      name: `egress proxy: ${what} requests/s`,
      unit: 'req/s',
      n: rps.ours.length,
      ...{ ours: r.ours, raw: r.raw, ratioKind: 'proxy/direct median', ratio: r.ours.p50 / r.raw.p50 },
      target: 'reported',
      verdict: '—',
      notes: [`${N} sequential GETs a round, ${ROUNDS} rounds, alternating`],
      cells: { ours: r.ours.p50.toFixed(0), raw: r.raw.p50.toFixed(0) },
    },
  ];
}

/**
 * A box with a secret bound to an outside host (a network namespace, test-support/outside-host.ts):
 * GETs through Boxdesk's egress proxy (HTTP forwarded with the header added; HTTPS terminated with
 * the installation's CA, the header added) against the same GETs straight to the host, same run.
 * Its own core, which trusts the outside's certificate (NODE_EXTRA_CA_CERTS). Needs root and Go.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  if (process.getuid?.() !== 0) throw new Error('the outside host (ip netns) needs root');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-egress-'));
  const outside = await startOutsideHost({ tls: ([a]) => selfSigned([a]) });
  const host = outside.addresses[0];
  const certificate = outside.tls!;
  fs.writeFileSync(path.join(dir, 'outside.pem'), certificate.cert);
  const core = await startCoreProcess({ env: { NODE_EXTRA_CA_CERTS: path.join(dir, 'outside.pem') } });
  const project = ctx.project;
  try {
    const secret = { name: 'bench-key', value: 'sk-bench', hosts: [host] };
    await expectJson(await api(core, 'POST', '/v1/secrets', secret), 201, 'add a secret');
    await expectJson(await api(core, 'POST', P(project), { name: BOX, secrets: ['bench-key'] }), 201, 'create');
    await put(core, project, '/tmp/client', fs.readFileSync(egressClientBinary()), '0755');
    await put(core, project, '/tmp/outside.pem', certificate.cert, '0644');
    progress(`egress proxy: ${ROUNDS} rounds of ${N} GETs over HTTP and HTTPS, through the proxy and direct`);
    const direct = 'NO_PROXY=*';
    const http = await alternateRuns(
      () => clientRun(core, project, '', `http://${host}:8080/`),
      () => clientRun(core, project, direct, `http://${host}:8080/`),
    );
    const https = await alternateRuns(
      () => clientRun(core, project, '', `https://${host}/`),
      () => clientRun(core, project, `${direct} SSL_CERT_FILE=/tmp/outside.pem`, `https://${host}/`),
    );
    return [...rows('HTTP, header added', http.ours, http.raw), ...rows('HTTPS, terminated', https.ours, https.raw)];
  } finally {
    await api(core, 'DELETE', `${P(project)}/${BOX}`).catch(() => undefined);
    await core.stop();
    outside.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const egressProxy: BenchScenario = { name: 'egress-proxy', run };
