import type { FastifyBaseLogger } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../../../shared/errors';
import type { DataMount } from '../../../shared/schemas/box';
import type { LifecycleInput } from '../../../shared/schemas/box-lifecycle';
import type { HealthCheck } from '../../../shared/schemas/services';
import { readTail, REASON_TAIL_LINES } from '../engine/log-tail';
import type { BasesPort } from '../bases/port';
import type { BoxRow, BoxesPort } from '../boxes/port';
import type { ContainerEngine } from '../engine/container-engine';
import { now } from '../ids';
import { previewHost, type BoxAgent, type PublishingPort } from '../publishing/port';
import { probe } from './health-probe';
import { boxName, type DeploymentRow, type ServiceRow, type ServiceStore } from './store';

/** The tag that marks a box as a service's color: `boxdesk.service={name}`. */
export const SERVICE_TAG = 'boxdesk.service';
/** The longest the old color waits for its in-flight requests before it stops. */
export const DRAIN_MAX_MS = 30_000;

/** Why a deployment failed, in words for its `reason`. */
class DeployFailure extends Error {}

export interface DeployerDeps {
  store: ServiceStore;
  boxes: Pick<BoxesPort, 'create' | 'stop' | 'delete' | 'lookup' | 'byId' | 'setLifecycle'>;
  bases: Pick<BasesPort, 'resolveImage'>;
  engine: ContainerEngine;
  traffic: PublishingPort['traffic'];
  /** The proxy's way into a box's port, for health probes (a probe that passes means the proxy can reach it). */
  agent: BoxAgent;
  log: FastifyBaseLogger;
  /** Emits deployment.updated (and service.updated when `service` changed its live deployment). */
  announce(service: ServiceRow, deployment: DeploymentRow, serviceChanged?: boolean): void;
}

/** Whether the box is one of this service's colors (named {service}-{color}, tagged with it). */
export function ownedBy(service: Pick<ServiceRow, 'name'>, box: Pick<BoxRow, 'tags'>): boolean {
  return (JSON.parse(box.tags) as Record<string, string>)[SERVICE_TAG] === service.name;
}

/**
 * Runs one deployment: the new color's box beside the live one, the health
 * gate, the route switch in one transaction, the drain of the old color and
 * its removal. A deployment cut short by `signal` (the core closing, the
 * service deleted) stops where it is and writes nothing more: recovery or
 * the delete tidies up.
 */
export class Deployer {
  constructor(private readonly deps: DeployerDeps) {}

  async run(deploymentId: string, signal: AbortSignal): Promise<void> {
    let dep = this.deps.store.deployment(deploymentId);
    const service = dep && this.deps.store.getById(dep.service_id);
    if (!dep || !service || dep.status !== 'pending' || signal.aborted) return;
    try {
      dep = this.set(service, dep, { status: 'starting', step: `creating box ${boxName(service, dep.color)}` });
      const box = await this.startBox(service, dep, signal);
      dep = await this.healthGate(service, dep, box, signal);
      await this.goLive(dep, signal);
    } catch (err) {
      if (signal.aborted) return;
      const reason =
        err instanceof DeployFailure || err instanceof ApiError
          ? err.message
          : `internal error: ${err instanceof Error ? err.message : String(err)}`;
      if (!(err instanceof DeployFailure || err instanceof ApiError))
        this.deps.log.error({ err, service: service.name }, 'deployment failed unexpectedly');
      await this.fail(service, deploymentId, reason);
    }
  }

  private set(
    service: ServiceRow,
    dep: DeploymentRow,
    patch: Partial<Pick<DeploymentRow, 'status' | 'step' | 'reason'>>,
  ): DeploymentRow {
    const next = this.deps.store.updateDeployment(dep.id, patch, now());
    this.deps.announce(service, next);
    return next;
  }

  /** Creates the color's box running the deployment's command; a leftover of this service under that name goes first. */
  private async startBox(service: ServiceRow, dep: DeploymentRow, signal: AbortSignal): Promise<BoxRow> {
    const name = boxName(service, dep.color);
    const existing = this.deps.boxes.lookup(service.project, name);
    if (existing && !ownedBy(service, existing)) {
      throw new DeployFailure(
        `box "${name}" exists and is not this service's; rename or delete that box, then deploy again`,
      );
    }
    if (existing) {
      dep = this.set(service, dep, { step: `removing the leftover box ${name}` });
      await this.deps.boxes.delete(service.project, name);
      dep = this.set(service, dep, { step: `creating box ${name}` });
    }
    if (signal.aborted) throw signal.reason;
    const dataMounts = JSON.parse(dep.data_mounts) as DataMount[];
    const box = await this.deps.boxes.create(
      service.project,
      {
        name,
        base: dep.base,
        environment: JSON.parse(dep.environment) as Record<string, string>,
        tags: { [SERVICE_TAG]: service.name },
        ...(dataMounts.length ? { data_mounts: dataMounts } : {}),
      },
      dep.command ? { command: JSON.parse(dep.command) as string[] } : { command: await this.baseCommand(dep.base) },
    );
    // Not part of the Deployment clients see: recorded without an event.
    this.deps.store.updateDeployment(dep.id, { box_id: box.id }, now());
    if (box.status !== 'running')
      throw new DeployFailure(`box "${name}" did not start: ${box.status_reason ?? box.status}`);
    return this.deps.boxes.byId(box.id)!;
  }

  /** A service without a command runs what its base's image would run by itself. */
  private async baseCommand(base: string): Promise<string[]> {
    const image = await this.deps.engine.inspectImage(await this.deps.bases.resolveImage(base));
    const command = [...(image?.config.entrypoint ?? []), ...(image?.config.cmd ?? [])];
    if (command.length === 0)
      throw new DeployFailure(`base "${base}" names no command of its own; give the service a command`);
    return command;
  }

  /** Probes until `healthy_threshold` successes in a row, or fails once `start_timeout_s` has passed. */
  private async healthGate(
    service: ServiceRow,
    dep: DeploymentRow,
    box: BoxRow,
    signal: AbortSignal,
  ): Promise<DeploymentRow> {
    const hc = JSON.parse(dep.health_check) as HealthCheck;
    const deadline = Date.now() + hc.start_timeout_s * 1000;
    const host = previewHost(service.name, service.project);
    let passes = 0;
    let last = 'no probe was answered';
    dep = this.set(service, dep, {
      step: `health check 0/${hc.healthy_threshold}: probing GET ${hc.path} on port ${dep.port}`,
    });
    for (;;) {
      const row = this.deps.boxes.byId(box.id);
      if (!row || row.status !== 'running' || !row.container_id) {
        throw new DeployFailure(
          `box "${box.name}" is ${row ? row.status : 'gone'}${row?.status_reason ? ` (${row.status_reason})` : ''}; last probe: ${last}`,
        );
      }
      const result = await probe(this.deps.agent, row.container_id, dep.port, hc.path, host, hc.timeout_s * 1000);
      if (signal.aborted) throw signal.reason;
      last = result.answer;
      if (result.ok) {
        passes++;
        dep = this.set(service, dep, { step: `health check ${passes}/${hc.healthy_threshold} passed` });
        if (passes >= hc.healthy_threshold) return dep;
      } else {
        const step = `health check 0/${hc.healthy_threshold}: ${result.answer}`;
        if (passes > 0 || dep.step !== step) dep = this.set(service, dep, { step });
        passes = 0;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new DeployFailure(await this.timedOut(row, hc, last));
      await sleep(Math.min(hc.interval_s * 1000, left), undefined, { signal });
    }
  }

  /**
   * Why the gate gave up: the box's main process ended (the engine knows before the reconciler
   * has said so, on a busy machine), or the probes never passed.
   */
  private async timedOut(row: BoxRow, hc: HealthCheck, last: string): Promise<string> {
    const output = await this.lastOutput(row);
    const state = await this.deps.engine.inspectContainer(row.container_id!).catch(() => null);
    if (state && !state.running)
      return `box "${row.name}" stopped: its main process exited with code ${state.exitCode ?? 'unknown'} before its health check passed; ${output}`;
    return `health check did not pass ${hc.healthy_threshold} time(s) in a row within ${hc.start_timeout_s} s; last probe: ${last}; ${output}`;
  }

  private async lastOutput(row: BoxRow): Promise<string> {
    const output = await this.deps.engine
      .logs(row.container_id!, { tail: REASON_TAIL_LINES, follow: false })
      .then(readTail)
      .catch((err: Error) => `(could not be read: ${err.message})`);
    return `last output of box ${row.name}: ${output.trim() || '(none)'}`;
  }

  /**
   * The switch: one transaction makes this deployment live and the service
   * point at it; the proxy's next request goes to the new color. The old
   * color then drains (its in-flight requests finish, up to 30 s), stops and goes.
   */
  private async goLive(dep: DeploymentRow, signal: AbortSignal): Promise<void> {
    let service = this.deps.store.getById(dep.service_id)!;
    dep = this.set(service, dep, { status: 'healthy', step: 'switching route' });
    const switched = this.deps.store.switchLive(
      service,
      dep,
      dep.kind === 'rollback' ? 'rolled_back' : 'superseded',
      now(),
    );
    service = switched.service;
    if (switched.previous) this.deps.announce(service, switched.previous);
    dep = this.deps.store.deployment(dep.id)!;
    this.deps.announce(service, dep, true);
    // The service's clocks are its live box's from now (a box under its health gate has none: probes are no use).
    const live = dep.box_id ? this.deps.boxes.byId(dep.box_id) : undefined;
    if (service.lifecycle && live)
      await this.deps.boxes
        .setLifecycle(service.project, live.name, JSON.parse(service.lifecycle) as LifecycleInput)
        .catch((err: unknown) => this.deps.log.warn({ err, box: live.name }, 'could not set the live box’s clocks'));
    const old = switched.previous && this.deps.boxes.lookup(service.project, boxName(service, switched.previous.color));
    if (old && old.id !== dep.box_id && ownedBy(service, old)) {
      if (old.container_id) {
        const drained = this.deps.traffic.drain(
          old.container_id,
          DRAIN_MAX_MS,
          (n) =>
            (dep = this.set(service, dep, {
              step: `draining ${old.name} (${n} request${n === 1 ? '' : 's'} in flight)`,
            })),
          signal,
        );
        const left = await drained;
        if (left > 0)
          this.deps.log.warn(
            { service: service.name, box: old.name, left },
            'drain timed out; stopping the old color anyway',
          );
      }
      if (signal.aborted) return;
      dep = this.set(service, dep, { step: `stopping ${old.name}` });
      await this.deps.boxes
        .stop(service.project, old.name)
        .catch((err: Error) => this.deps.log.warn({ err, box: old.name }, 'could not stop the old color'));
      dep = this.set(service, dep, { step: `removing ${old.name}` });
      await this.removeBox(service, old.name);
    }
    this.set(service, dep, { step: null });
  }

  /** Marks the deployment failed with its reason and removes the box it made (the live color is untouched). */
  private async fail(service: ServiceRow, deploymentId: string, reason: string): Promise<void> {
    const dep = this.deps.store.deployment(deploymentId);
    if (!dep) return;
    const live = service.live_deployment ? this.deps.store.deployment(service.live_deployment) : undefined;
    const name = boxName(service, dep.color);
    const box = this.deps.boxes.lookup(service.project, name);
    if (box && dep.box_id === box.id && live?.color !== dep.color) {
      this.set(service, dep, { step: `removing ${name}` });
      await this.removeBox(service, name);
    }
    this.set(service, this.deps.store.deployment(deploymentId)!, { status: 'failed', step: null, reason });
  }

  /**
   * Removes one of the service's boxes; one that is gone already is fine. A
   * failure is logged, or with `strict` thrown (a service delete must not
   * forget boxes it could not remove).
   */
  async removeBox(service: ServiceRow, name: string, strict = false): Promise<void> {
    const box = this.deps.boxes.lookup(service.project, name);
    if (!box || !ownedBy(service, box)) return;
    await this.deps.boxes.delete(service.project, name).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'not_found') return;
      if (strict) throw err;
      this.deps.log.warn({ err, box: name }, 'could not remove a service box');
    });
  }
}
