import type { FastifyBaseLogger } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HealthCheck } from '../../../shared/schemas/services';
import type { BoxRow, BoxesPort } from '../boxes/port';
import { previewHost, type BoxAgent, type ProxyRoute } from '../publishing/port';
import { probe } from './health-probe';
import { boxName, type DeploymentRow, type ServiceRow, type ServiceStore } from './store';

/** How often a woken service's box is probed until it answers. */
const WAKE_PROBE_MS = 100;

export interface LiveRouteDeps {
  store: Pick<ServiceStore, 'get' | 'deployment'>;
  boxes: Pick<BoxesPort, 'lookup' | 'byId' | 'resume' | 'wake'>;
  agent: BoxAgent;
  log: FastifyBaseLogger;
  url(service: ServiceRow): string;
}

/**
 * The proxy's route to each service's live box. A live box paused or stopped (its clocks, or a
 * user) still routes: the request wakes it first (a stopped one is started and waits for its
 * health check, as a deploy does), so no request fails because the service was asleep; the
 * requests that arrive meanwhile share one wake.
 */
export class LiveRoutes {
  private readonly waking = new Map<string, Promise<void>>();

  constructor(private readonly deps: LiveRouteDeps) {}

  /** The proxy's route for the service `name` of `project` (null: no such service). */
  route(project: string, name: string): ProxyRoute | null {
    const service = this.deps.store.get(project, name);
    if (!service) return null;
    const live = service.live_deployment ? this.deps.store.deployment(service.live_deployment) : undefined;
    const box = live && this.deps.boxes.lookup(project, boxName(service, live.color));
    const common = {
      name: service.name,
      project,
      url: this.deps.url(service),
      url_auth: service.auth,
      service: true as const,
    };
    if (!live || !box) {
      const why = live
        ? `its box ${boxName(service, live.color)} is gone; deploy it again`
        : 'no deployment of it is live yet (GET its deployments to see why)';
      return {
        ...common,
        status: 'stopped',
        status_reason: null,
        container_id: null,
        port: live?.port ?? service.port,
        unavailable: `service "${name}" has nothing to serve: ${why}`,
      };
    }
    // A box being woken (resuming, then up but not yet healthy) routes to the same wake.
    const asleep = box.status === 'paused' || box.status === 'stopped' || this.waking.has(box.id);
    const down =
      (box.status === 'running' || asleep) && box.container_id
        ? undefined
        : `service "${name}" has nothing to serve: its live box ${box.name} is ${box.status}${box.status_reason ? ` (${box.status_reason})` : ''}; resume it (box resume ${box.name}) or deploy again (box deploy ${name})`;
    return {
      ...common,
      status: box.status,
      status_reason: box.status_reason,
      container_id: box.container_id,
      port: live.port,
      box,
      ...(asleep && !down ? { wake: () => this.wake(service, live, box) } : {}),
      ...(down ? { unavailable: down } : {}),
    };
  }

  /** Wakes the live box once for every request waiting on it. */
  private wake(service: ServiceRow, live: DeploymentRow, box: BoxRow): Promise<void> {
    let waking = this.waking.get(box.id);
    if (!waking && box.status === 'paused') return this.deps.boxes.wake(box);
    if (!waking) {
      waking = this.start(service, live, box).finally(() => this.waking.delete(box.id));
      this.waking.set(box.id, waking);
    }
    return waking;
  }

  /** Starts the stopped box, then probes its health path until it answers (bounded by start_timeout_s). */
  private async start(service: ServiceRow, live: DeploymentRow, box: BoxRow): Promise<void> {
    this.deps.log.info({ service: service.name, box: box.name }, 'a request wakes a stopped service');
    await this.deps.boxes.resume(box.project, box.name);
    const hc = JSON.parse(live.health_check) as HealthCheck;
    const host = previewHost(service.name, service.project);
    const deadline = Date.now() + hc.start_timeout_s * 1000;
    for (;;) {
      const row = this.deps.boxes.byId(box.id);
      if (!row?.container_id) throw new Error(`its box ${box.name} is gone`);
      const result = await probe(this.deps.agent, row.container_id, live.port, hc.path, host, hc.timeout_s * 1000);
      if (result.ok) return;
      if (Date.now() > deadline)
        throw new Error(`its health check did not pass within ${hc.start_timeout_s} s: ${result.answer}`);
      await sleep(WAKE_PROBE_MS);
    }
  }
}
