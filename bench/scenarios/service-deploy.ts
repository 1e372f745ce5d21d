import http from 'node:http';
import type { Deployment, Service } from '../../shared/schemas/services';
import { api } from '../../test-support/core-process';
import { versionServer } from '../../test-support/services';
import type { ScenarioResult } from '../report';
import { progress, summarize } from '../stats';
import type { BenchContext, BenchScenario } from './context';

const SERVICE = 'benchsvc';
const HEALTH = { path: '/', interval_s: 0.2, timeout_s: 1, healthy_threshold: 2, start_timeout_s: 60 };
/** What the health gate costs by itself: the scenario reports the time beyond it. */
const GATE_MS = HEALTH.interval_s * HEALTH.healthy_threshold * 1000;
const CONCURRENCY = 4;
const STEADY_S = 3;

interface Load {
  done: number;
  failed: number;
  stop: boolean;
}

/** CONCURRENCY keep-alive clients GETting / through the service URL until `load.stop`. */
function startLoad(url: URL, load: Load): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const one = () =>
    new Promise<void>((resolve) => {
      const req = http.get(
        { host: '127.0.0.1', port: Number(url.port), path: '/', headers: { host: url.host }, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) load.done++;
            else load.failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        load.failed++;
        resolve();
      });
    });
  const loops = Array.from({ length: CONCURRENCY }, async () => {
    while (!load.stop) await one();
  });
  return Promise.all(loops).then(() => agent.destroy());
}

async function call<T>(ctx: BenchContext, method: string, path: string, body?: unknown): Promise<T> {
  const res = await api(ctx.core, method, `/v1/projects/${ctx.project}/services${path}`, body);
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} services${path}: HTTP ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Polls until the deployment has ended (live with its old color gone, or failed). */
async function settled(ctx: BenchContext, id: string): Promise<Deployment> {
  for (;;) {
    const d = await call<Deployment>(ctx, 'GET', `/${SERVICE}/deployments/${id}`);
    if (d.status === 'failed') throw new Error(`deployment failed: ${d.reason}`);
    if (d.status === 'live' && d.step === null) return d;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A service (busybox httpd, health checks every 0.2 s, 2 in a row) deployed
 * `n` times: the time from the deploy request to the route switch beyond the
 * health gate's own interval × threshold, and requests/s through the service
 * URL while each deploy runs against the steady state before it.
 */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  const n = Math.min(ctx.n, 8);
  const created = await call<Service>(ctx, 'POST', '', {
    name: SERVICE,
    command: versionServer(),
    port: 8080,
    environment: { VERSION: '0' },
    health_check: HEALTH,
    auth: 'public',
  });
  const url = new URL(created.url);
  try {
    await settled(ctx, (await call<{ items: Deployment[] }>(ctx, 'GET', `/${SERVICE}/deployments`)).items[0]!.id);
    progress(
      `service: ${n} deploys, each after ${STEADY_S} s of steady load; ${CONCURRENCY} keep-alive clients on ${url.host}`,
    );
    const switchMs: number[] = [];
    const steady: number[] = [];
    const during: number[] = [];
    let failed = 0;
    for (let i = 1; i <= n; i++) {
      const load: Load = { done: 0, failed: 0, stop: false };
      const running = startLoad(url, load);
      await new Promise((r) => setTimeout(r, STEADY_S * 1000));
      const steadyDone = load.done;
      const start = performance.now();
      const queued = await call<Deployment>(ctx, 'POST', `/${SERVICE}/deployments`, {
        environment: { VERSION: String(i) },
      });
      const live = await settled(ctx, queued.id);
      const seconds = (performance.now() - start) / 1000;
      load.stop = true;
      await running;
      switchMs.push(Date.parse(live.live_at!) - Date.parse(live.created_at) - GATE_MS);
      steady.push(steadyDone / STEADY_S);
      during.push((load.done - steadyDone) / seconds);
      failed += load.failed;
      progress(
        `  deploy ${i}: switch after ${(switchMs.at(-1)! + GATE_MS).toFixed(0)} ms; ${steady.at(-1)!.toFixed(0)} req/s steady, ${during.at(-1)!.toFixed(0)} during`,
      );
    }
    const s = summarize(switchMs);
    const rps = { steady: summarize(steady), during: summarize(during) };
    const ratio = rps.during.p50 / rps.steady.p50;
    return [
      {
        name: 'service: deploy → route switch beyond the health gate',
        unit: 'ms',
        n,
        ours: s,
        raw: null,
        ratioKind: '',
        ratio: null,
        target: '—',
        verdict: '—',
        notes: [
          `live_at − created_at minus interval × threshold (${GATE_MS} ms): creating and starting the box, first probe, the switch`,
        ],
      },
      {
        name: 'service: req/s during a deploy vs steady (c=4)',
        unit: 'req/s',
        n,
        ours: rps.during,
        raw: rps.steady,
        ratioKind: 'during/steady median',
        ratio,
        target: '0 failed',
        verdict: failed === 0 ? 'PASS' : 'MISS',
        notes: [`${failed} failed requests; "raw" column: the steady state before each deploy, through the same URL`],
        cells: { ours: rps.during.p50.toFixed(0), raw: rps.steady.p50.toFixed(0) },
        extra: { failed },
      },
    ];
  } finally {
    await api(ctx.core, 'DELETE', `/v1/projects/${ctx.project}/services/${SERVICE}`).catch(() => undefined);
  }
}

export const serviceDeploy: BenchScenario = { name: 'service blue/green deploy', run };
