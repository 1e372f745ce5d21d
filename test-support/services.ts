import assert from 'node:assert/strict';
import type { Deployment, Service } from '../shared/schemas/services';
import type { SseClient, SseEvent } from './sse';

type Api = (method: string, pathname: string, body?: unknown) => Promise<Response>;

/**
 * A service command: a busybox httpd on 8080 serving "v$VERSION" at / (or /data/log, when `log`
 * names a file on a mounted volume, each version appending itself), and at /cgi-bin/slow
 * "slow v$VERSION" after `slowSeconds`.
 */
export function versionServer(options: { log?: string; slowSeconds?: number } = {}): string[] {
  const page = options.log
    ? `echo v$VERSION >> ${options.log} && cp ${options.log} /srv/index.html`
    : 'echo v$VERSION > /srv/index.html';
  const slow = `mkdir -p /srv/cgi-bin && printf '#!/bin/sh\nsleep ${options.slowSeconds ?? 3}\necho "Content-Type: text/plain\\r"\necho "\\r"\necho slow v%s\n' "$VERSION" > /srv/cgi-bin/slow && chmod +x /srv/cgi-bin/slow`;
  return ['sh', '-c', `mkdir -p /srv && ${page} && ${slow} && exec httpd -f -p 8080 -h /srv`];
}

/** A command that runs but serves nothing, and says so. */
export const SERVES_NOTHING = ['sh', '-c', 'echo "v$VERSION starting without a server"; exec sleep 100000'];

/** Short health checks: tests should not wait on defaults meant for people. */
export const FAST_HEALTH = { interval_s: 0.2, timeout_s: 1, healthy_threshold: 2, start_timeout_s: 20 };

/** Polls a deployment until it has ended (step null and a final status); throws after `limitMs` with what it last was. */
export async function settledDeployment(
  api: Api,
  servicePath: string,
  id: string,
  limitMs = 60_000,
): Promise<Deployment> {
  const until = Date.now() + limitMs;
  let last: Deployment | null = null;
  while (Date.now() < until) {
    const res = await api('GET', `${servicePath}/deployments/${id}`);
    if (res.status !== 200) throw new Error(`GET deployment ${id}: ${res.status} ${await res.text()}`);
    last = (await res.json()) as Deployment;
    if (last.step === null && last.status !== 'pending' && last.status !== 'starting' && last.status !== 'healthy')
      return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`deployment ${id} did not settle within ${limitMs} ms; last: ${JSON.stringify(last)}`);
}

/**
 * Creates a service (201) answering "v1" (versionServer, FAST_HEALTH, public: `body` adds or
 * overrides) and waits until its first deployment has settled.
 */
export async function createVersionService(
  api: Api,
  servicesPath: string,
  body: { name: string } & Record<string, unknown>,
  limitMs?: number,
): Promise<{ service: Service; first: Deployment }> {
  const service = await json<Service>(
    api('POST', servicesPath, {
      command: versionServer(),
      port: 8080,
      environment: { VERSION: '1' },
      health_check: FAST_HEALTH,
      auth: 'public',
      ...body,
    }),
    201,
  );
  const { items } = await json<{ items: Deployment[] }>(api('GET', `${servicesPath}/${body.name}/deployments`), 200);
  return { service, first: await settledDeployment(api, `${servicesPath}/${body.name}`, items[0]!.id, limitMs) };
}

export async function json<T>(res: Response | Promise<Response>, status: number): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const deploymentOf = (e: SseEvent) => (JSON.parse(e.data) as { data: { deployment: Deployment } }).data.deployment;

/** The steps a blue-green deploy of `web` from blue to green reports, in order, as `status: step`. */
const BLUE_TO_GREEN = [
  'pending: waiting for its turn',
  'starting: creating box web-green',
  'starting: health check 1/2 passed',
  'starting: health check 2/2 passed',
  'healthy: switching route',
  'live: stopping web-blue',
  'live: removing web-blue',
  'live: null',
];

/**
 * Waits until the event stream says deployment `id` is live with nothing left to do, then checks
 * that its `deployment.updated` events told each step of a blue-to-green deploy, in order.
 */
export async function assertBlueToGreenSteps(sse: SseClient, id: string): Promise<void> {
  await sse.waitFor(
    (e) =>
      e.event === 'deployment.updated' &&
      deploymentOf(e).id === id &&
      deploymentOf(e).status === 'live' &&
      deploymentOf(e).step === null,
  );
  const steps = sse.events
    .filter((e) => e.event === 'deployment.updated')
    .map(deploymentOf)
    .filter((d) => d.id === id)
    .map((d) => `${d.status}: ${d.step}`);
  assert.deepEqual(
    steps.filter((s) => BLUE_TO_GREEN.includes(s)),
    BLUE_TO_GREEN,
    steps.join('\n'),
  );
}

export type { Deployment, Service };
