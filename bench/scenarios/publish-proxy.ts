import autocannon from 'autocannon';
import http from 'node:http';
import { startBareNodeProxy } from '../bare-node-proxy';
import { startKeepAliveServer } from '../keepalive-server';
import type { ScenarioResult } from '../report';
import { containerOfBox, docker } from '../raw-engine';
import { alternate, percentile, progress, summarize } from '../stats';
import { api } from '../../test-support/core-process';
import { createBox, expectJson, type BenchContext, type BenchScenario } from './context';

const BOX = 'pubweb';
const BIG = 100 * 1024 * 1024;
const LATENCY_N = 1000;
const LOAD_S = 5;
const CONCURRENCY = 8;
const ROUNDS = 3;
/** Downloads are short (100 MiB takes a fifth of a second) and vary run to run: more rounds for a steadier median. */
const DOWNLOAD_ROUNDS = 9;
const PORT = 8080;

export interface Endpoint {
  host: string;
  port: number;
  /** The Host header to send. */
  hostHeader: string;
  agent: http.Agent;
}

function get(ep: Endpoint, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: ep.host, port: ep.port, path, headers: { host: ep.hostHeader }, agent: ep.agent },
      (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(bytes)
            : reject(new Error(`HTTP ${res.statusCode} from ${ep.hostHeader}${path}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Sequential GETs: per-request latencies in ms. */
async function latencies(ep: Endpoint, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await get(ep, '/index.html');
    out.push(performance.now() - start);
  }
  return out;
}

/** autocannon: CONCURRENCY keep-alive connections for LOAD_S seconds; requests per second. */
export async function requestsPerSecond(ep: Endpoint): Promise<number> {
  const result = await autocannon({
    url: `http://${ep.host}:${ep.port}/index.html`,
    headers: { host: ep.hostHeader },
    connections: CONCURRENCY,
    duration: LOAD_S,
  });
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0) throw new Error(`${failed} of ${result.requests.total} requests to ${ep.hostHeader} failed`);
  return result.requests.total / LOAD_S;
}

async function download(ep: Endpoint): Promise<number> {
  const start = performance.now();
  const bytes = await get(ep, '/big');
  if (bytes !== BIG) throw new Error(`downloaded ${bytes} of ${BIG} bytes`);
  return bytes / 1024 / 1024 / ((performance.now() - start) / 1000);
}

/** The bench's keep-alive server in a box, published (auth public): the endpoint through the proxy and the one straight to the container. */
async function publishedServer(ctx: BenchContext): Promise<{ proxy: Endpoint; direct: Endpoint; note: string }> {
  await createBox(ctx, BOX);
  await startKeepAliveServer(ctx, BOX, PORT);
  const res = await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${BOX}/publish`, {
    port: PORT,
    auth: 'public',
  });
  const url = new URL((await expectJson<{ url: string }>(res, 200, 'publish')).url);
  const info = await docker.getContainer(await containerOfBox(ctx.project, BOX)).inspect();
  const address = Object.values(info.NetworkSettings.Networks)
    .map((n) => n.IPAddress)
    .find(Boolean)!;
  // Clients keep connections alive on both sides, and so does the server.
  const agent = () => new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  return {
    proxy: { host: '127.0.0.1', port: Number(url.port), hostHeader: url.host, agent: agent() },
    direct: { host: address, port: PORT, hostHeader: `${address}:${PORT}`, agent: agent() },
    note: `proxy: 127.0.0.1:${url.port} with Host ${url.host}; direct: ${address}:${PORT}`,
  };
}

/**
 * A keep-alive HTTP server in a box, published (auth public), against the same
 * server reached directly at the container's address, in the same run.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const { proxy, direct, note } = await publishedServer(ctx);
  progress(
    `publish proxy: warm-up, then ${ROUNDS} rounds of ${LATENCY_N} sequential GETs, ${LOAD_S} s at concurrency ${CONCURRENCY}, and a ${BIG / 1024 / 1024} MiB download, alternating`,
  );
  await latencies(proxy, 50);
  await latencies(direct, 50);
  const lat = { ours: [] as number[], raw: [] as number[] };
  const rps = await alternate(
    ROUNDS,
    async () => {
      lat.ours.push(...(await latencies(proxy, LATENCY_N)));
      return requestsPerSecond(proxy);
    },
    async () => {
      lat.raw.push(...(await latencies(direct, LATENCY_N)));
      return requestsPerSecond(direct);
    },
  );
  const mbs = await alternate(
    DOWNLOAD_ROUNDS,
    () => download(proxy),
    () => download(direct),
    (i) => progress(`  download round ${i + 1} done`),
  );
  const reference = await bareProxyRuns(direct);
  const wake = await wakeLatencies(ctx, proxy, direct);
  proxy.agent.destroy();
  direct.agent.destroy();
  return [...results(rps, lat, mbs, note), ...referenceResults(reference, rps, mbs), wakeResult(wake)];
}

/** The same load through a bare Node proxy (bench/bare-node-proxy.ts) against direct, alternating. */
async function bareProxyRuns(direct: Endpoint): Promise<{ rps: Runs; mbs: Runs }> {
  progress('publish proxy: the same through a bare Node proxy, for reference');
  const bare = await startBareNodeProxy(direct.host, direct.port);
  const ep: Endpoint = { ...direct, host: '127.0.0.1', port: bare.port, agent: new http.Agent({ keepAlive: true }) };
  try {
    const rps = await alternate(
      ROUNDS,
      () => requestsPerSecond(ep),
      () => requestsPerSecond(direct),
    );
    const mbs = await alternate(
      DOWNLOAD_ROUNDS,
      () => download(ep),
      () => download(direct),
    );
    return { rps, mbs };
  } finally {
    ep.agent.destroy();
    bare.stop();
  }
}

/** Reported, not judged: what Node's http module alone allows here, and the preview proxy against it. */
function referenceResults(bare: { rps: Runs; mbs: Runs }, rps: Runs, mbs: Runs): ScenarioResult[] {
  const row = (what: string, unit: string, runs: Runs, ours: number[]): ScenarioResult => {
    const b = summarize(runs.ours);
    const d = summarize(runs.raw);
    return {
      name: `publish: bare Node proxy, ${what}`,
      unit,
      n: runs.ours.length,
      ours: b,
      raw: d,
      ratioKind: 'bare/direct median',
      ratio: b.p50 / d.p50,
      target: 'reported',
      verdict: '—',
      notes: [
        `the preview proxy against the bare Node proxy: ${(summarize(ours).p50 / b.p50).toFixed(2)} (their medians)`,
      ],
      cells: { ours: b.p50.toFixed(0), raw: d.p50.toFixed(0) },
    };
  };
  return [row('requests/s', 'req/s', bare.rps, rps.ours), row('100 MiB download', 'MiB/s', bare.mbs, mbs.ours)];
}

const WAKE_N = 20;

/** The first answer through the proxy from a paused box (it wakes for it) against a GET straight to it running. */
async function wakeLatencies(ctx: BenchContext, proxy: Endpoint, direct: Endpoint): Promise<Runs> {
  progress(`publish proxy: ${WAKE_N} first answers from the box paused, against direct GETs`);
  const out: Runs = { ours: [], raw: [] };
  for (let i = 0; i < WAKE_N; i++) {
    await expectJson(await api(ctx.core, 'POST', `/v1/projects/${ctx.project}/boxes/${BOX}/pause`), 200, 'pause');
    let start = performance.now();
    await get(proxy, '/index.html');
    out.ours.push(performance.now() - start);
    start = performance.now();
    await get(direct, '/index.html');
    out.raw.push(performance.now() - start);
  }
  return out;
}

function wakeResult(wake: Runs): ScenarioResult {
  const ours = summarize(wake.ours);
  const raw = summarize(wake.raw);
  const added = percentile(wake.ours, 95) - percentile(wake.raw, 95);
  return {
    name: 'publish: first answer, box paused',
    unit: 'ms',
    n: WAKE_N,
    ours,
    raw,
    ratioKind: 'p95 ms added',
    ratio: added,
    target: 'p95 ≤ +100 ms',
    verdict: added <= 100 ? 'PASS' : 'MISS',
    notes: ['ours: a GET through the proxy to the paused box, which wakes for it; raw: a GET straight to it, running'],
    cells: { ours: `p95 ${percentile(wake.ours, 95).toFixed(1)}`, raw: `p95 ${percentile(wake.raw, 95).toFixed(1)}` },
  };
}

type Runs = { ours: number[]; raw: number[] };

function results(rps: Runs, lat: Runs, mbs: Runs, note: string): ScenarioResult[] {
  const r = { ours: summarize(rps.ours), raw: summarize(rps.raw) };
  const l = { ours: summarize(lat.ours), raw: summarize(lat.raw) };
  const m = { ours: summarize(mbs.ours), raw: summarize(mbs.raw) };
  const p99 = (v: number[]) => percentile(v, 99).toFixed(2);
  const rpsRatio = r.ours.p50 / r.raw.p50;
  const latDelta = l.ours.p50 - l.raw.p50;
  const mbRatio = m.ours.p50 / m.raw.p50;
  return [
    {
      name: `publish: requests/s, keep-alive (c=${CONCURRENCY})`,
      unit: 'req/s',
      n: ROUNDS,
      ours: r.ours,
      raw: r.raw,
      ratioKind: 'proxy/direct median',
      ratio: rpsRatio,
      target: '≥ 0.8',
      verdict: rpsRatio >= 0.8 ? 'PASS' : 'MISS',
      notes: [note],
      cells: { ours: r.ours.p50.toFixed(0), raw: r.raw.p50.toFixed(0) },
    },
    {
      name: 'publish: GET latency',
      unit: 'ms',
      n: lat.ours.length,
      ours: l.ours,
      raw: l.raw,
      ratioKind: 'p50 ms added',
      ratio: latDelta,
      target: 'p50 ≤ +1 ms',
      verdict: latDelta <= 1 ? 'PASS' : 'MISS',
      notes: [`p99: proxy ${p99(lat.ours)} ms, direct ${p99(lat.raw)} ms`],
      cells: {
        ours: `${l.ours.p50.toFixed(2)} / p99 ${p99(lat.ours)}`,
        raw: `${l.raw.p50.toFixed(2)} / p99 ${p99(lat.raw)}`,
      },
      extra: { p99_ours_ms: percentile(lat.ours, 99), p99_raw_ms: percentile(lat.raw, 99) },
    },
    {
      name: 'publish: 100 MiB download',
      unit: 'MiB/s',
      n: mbs.ours.length,
      ours: m.ours,
      raw: m.raw,
      ratioKind: 'proxy/direct median',
      ratio: mbRatio,
      target: '≥ 0.9',
      verdict: mbRatio >= 0.9 ? 'PASS' : 'MISS',
      notes: [],
      cells: { ours: m.ours.p50.toFixed(0), raw: m.raw.p50.toFixed(0) },
    },
  ];
}

export const publishProxy: BenchScenario = { name: 'publish proxy', run };
