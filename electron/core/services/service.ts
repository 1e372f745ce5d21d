import { ApiError } from '../../../shared/errors';
import type { DataMount } from '../../../shared/schemas/box';
import {
  HEALTH_CHECK_DEFAULTS,
  SERVICE_COLORS,
  type DeployRequest,
  type Deployment,
  type HealthCheck,
  type Service,
  type ServiceColor,
  type ServiceCreate,
  type ServiceUpdate,
} from '../../../shared/schemas/services';
import { DEFAULT_BASE, type BasesPort } from '../bases/port';
import { checkDataMounts, mergeLifecycle, parseLifecycle, type BoxRow, type BoxesPort } from '../boxes/port';
import type { EventBus } from '../events/event-bus';
import { newId, now } from '../ids';
import { KeyedMutex } from '../keyed-mutex';
import { previewUrl, type BoxAgent, type ProxyRoute, type PublishingPort } from '../publishing/port';
import type { VolumesPort } from '../volumes/port';
import { Deployer, ownedBy, SERVICE_TAG, type DeployerDeps } from './deployer';
import { LiveRoutes } from './live-route';
import { boxName, toDeployment, toService, type DeploymentRow, type DeploymentSpec, type ServiceRow } from './store';

/** The stored clocks with a body's over them (JSON; null: none). */
function lifecycleJson(stored: string | null, input: ServiceCreate['lifecycle']): string | null {
  const merged = mergeLifecycle(parseLifecycle(stored), input, Date.now());
  return merged && JSON.stringify(merged);
}

/** Service ids svc_…, deployment ids dep_…. */
export const SERVICE_ID_PREFIXES = { service: 'svc', deployment: 'dep' } as const;

export interface ServiceManagerDeps extends Omit<DeployerDeps, 'announce' | 'boxes' | 'bases' | 'traffic' | 'agent'> {
  boxes: DeployerDeps['boxes'] & Pick<BoxesPort, 'guardClientDeletes' | 'resume' | 'wake' | 'setLifecycle'>;
  bases: DeployerDeps['bases'] & Pick<BasesPort, 'has'>;
  volumes: Pick<VolumesPort, 'requireVolumes'>;
  publishing: Pick<PublishingPort, 'proxyPort' | 'traffic' | 'newAgent'>;
  bus: EventBus;
}

/**
 * Services: their spec, their deployments (one at a time per service, in
 * arrival order) and the route the proxy takes to the live color. Knows
 * nothing of HTTP; the Deployer does the engine work of one deployment.
 */
export class ServiceManager {
  /** Deployments of one service run one after another; later ones wait `pending`. */
  readonly queue = new KeyedMutex();
  private readonly closing = new AbortController();
  /** Aborted when its service is deleted: the running deployment stops where it is. */
  private readonly deleting = new Map<string, AbortController>();
  private readonly running = new Set<Promise<void>>();
  /** The proxy's way into boxes, for health probes; closed at dispose. */
  private readonly agent: BoxAgent;
  readonly deployer: Deployer;
  private readonly routes: LiveRoutes;

  constructor(private readonly deps: ServiceManagerDeps) {
    this.agent = deps.publishing.newAgent();
    this.deployer = new Deployer({
      ...deps,
      traffic: deps.publishing.traffic,
      agent: this.agent,
      announce: (service, deployment, changed) => this.announce(service, deployment, changed),
    });
    deps.boxes.guardClientDeletes((box) => this.refuseDeleteOfServing(box));
    this.routes = new LiveRoutes({ ...deps, agent: this.agent, url: (row) => this.url(row) });
  }

  /** A volume a service's spec mounts cannot go: its next deploy would fail for want of it. */
  refuseDeleteOfSpecVolume(volume: { project: string; name: string }): void {
    const users = this.deps.store
      .list(volume.project)
      .filter((s) => (JSON.parse(s.data_mounts) as DataMount[]).some((m) => m.name === volume.name));
    if (!users.length) return;
    const list = users.map((s) => s.name).join(', ');
    throw new ApiError(
      'conflict',
      `volume "${volume.name}" is in the spec of service${users.length > 1 ? 's' : ''} ${list}; take it out (box service update ${users[0]!.name} --no-volumes, or -v with the others) or remove the service first`,
    );
  }

  /** A client may not delete the box that serves a service's URL: the URL would answer 502 until the next deploy. */
  private refuseDeleteOfServing(box: BoxRow): void {
    const owner = (JSON.parse(box.tags) as Record<string, string>)[SERVICE_TAG];
    const service = owner !== undefined ? this.deps.store.get(box.project, owner) : undefined;
    if (!service || !ownedBy(service, box)) return;
    const live = service.live_deployment ? this.deps.store.deployment(service.live_deployment) : undefined;
    if (!live || boxName(service, live.color) !== box.name) return;
    throw new ApiError(
      'conflict',
      `box "${box.name}" serves service "${service.name}" (its live color); remove the service with box service rm ${service.name}, or replace the box with box deploy ${service.name}`,
    );
  }

  /** Deployments under way stop where they are (the next start tidies up); the probes' connections close. */
  async dispose(): Promise<void> {
    this.closing.abort(new Error('the core is closing'));
    await Promise.allSettled([...this.running]);
    this.agent.destroy();
  }

  /** With the proxy's port as it is now (it listens before the API answers). */
  private url(row: ServiceRow): string {
    return previewUrl(row.name, row.project, this.deps.publishing.proxyPort);
  }

  private toApi(row: ServiceRow): Service {
    return toService(
      row,
      row.live_deployment ? this.deps.store.deployment(row.live_deployment) : undefined,
      this.url(row),
    );
  }

  /** deployment.updated, and service.updated when the live deployment changed. */
  announce(service: ServiceRow, deployment: DeploymentRow, serviceChanged = false): void {
    const current = this.deps.store.getById(service.id) ?? service;
    this.deps.bus.emit(
      'deployment.updated',
      { service: current.name, deployment: toDeployment(current, deployment) },
      current.project,
    );
    if (serviceChanged) this.deps.bus.emit('service.updated', { service: this.toApi(current) }, current.project);
  }

  private find(project: string, name: string): ServiceRow {
    const row = this.deps.store.get(project, name);
    if (!row) throw new ApiError('not_found', `service "${name}" not found in project "${project}"`);
    return row;
  }

  get(project: string, name: string): Service {
    return this.toApi(this.find(project, name));
  }

  list(project: string): Service[] {
    return this.deps.store.list(project).map((row) => this.toApi(row));
  }

  deployments(project: string, name: string): Deployment[] {
    const service = this.find(project, name);
    return this.deps.store.deployments(service.id).map((d) => toDeployment(service, d));
  }

  deployment(project: string, name: string, id: string): Deployment {
    const service = this.find(project, name);
    const row = this.deps.store.deployment(id);
    if (!row || row.service_id !== service.id)
      throw new ApiError('not_found', `deployment "${id}" not found in service "${name}"`);
    return toDeployment(service, row);
  }

  create(project: string, input: ServiceCreate): Service {
    const dataMounts = this.checkSpec(project, input.base ?? DEFAULT_BASE, input.data_mounts);
    this.checkCollisions(project, input.name);
    const at = now();
    const row: ServiceRow = {
      id: newId(SERVICE_ID_PREFIXES.service),
      project,
      name: input.name,
      base: input.base ?? DEFAULT_BASE,
      command: input.command ? JSON.stringify(input.command) : null,
      port: input.port,
      environment: JSON.stringify(input.environment ?? {}),
      data_mounts: JSON.stringify(dataMounts),
      health_check: JSON.stringify({ ...HEALTH_CHECK_DEFAULTS, ...input.health_check } satisfies HealthCheck),
      auth: input.auth ?? 'token',
      lifecycle: lifecycleJson(null, input.lifecycle),
      live_deployment: null,
      created_at: at,
      updated_at: at,
    };
    const first = this.newDeployment(row, 'deploy', row);
    if (!this.deps.store.insert(row, first))
      throw new ApiError('already_exists', `service "${input.name}" already exists in project "${project}"`);
    const service = this.toApi(row);
    this.deps.bus.emit('service.created', { service }, project);
    this.announce(row, first);
    this.enqueue(row, first);
    return service;
  }

  /** The base exists and the mounts name ready volumes of the project; the mounts as stored. */
  private checkSpec(project: string, base: string, mounts: DataMount[] | undefined): DataMount[] {
    if (!this.deps.bases.has(base))
      throw new ApiError('not_found', `base "${base}" not found; GET /v1/bases lists them`, {
        errors: [{ path: 'body.base', message: 'no such base' }],
      });
    const dataMounts = mounts ? checkDataMounts(mounts) : [];
    this.deps.volumes.requireVolumes(project, dataMounts);
    return dataMounts;
  }

  /** The service's boxes and host must be free: no other box named {name}-blue|green, no published box at its URL. */
  private checkCollisions(project: string, name: string): void {
    if (this.deps.store.get(project, name))
      throw new ApiError('already_exists', `service "${name}" already exists in project "${project}"`);
    for (const color of SERVICE_COLORS) {
      const box = this.deps.boxes.lookup(project, `${name}-${color}`);
      if (box && !ownedBy({ name }, box)) {
        const hint = `rename or delete box "${box.name}", or pick another service name`;
        throw new ApiError(
          'already_exists',
          `box "${box.name}" exists: a service "${name}" runs its colors as ${name}-blue and ${name}-green; ${hint}`,
          { hint, errors: [{ path: 'body.name', message: 'its box names are taken' }] },
        );
      }
    }
    const published = this.deps.boxes.lookup(project, name);
    if (published?.url_auth) {
      const hint = `unpublish box "${name}" (box unpublish ${name}), or pick another service name`;
      throw new ApiError(
        'already_exists',
        `box "${name}" is published at ${published.url ?? 'the same URL'}, the URL this service would take; ${hint}`,
        { hint, errors: [{ path: 'body.name', message: 'its URL is taken' }] },
      );
    }
  }

  async update(project: string, name: string, input: ServiceUpdate): Promise<Service> {
    const row = this.find(project, name);
    const dataMounts = this.checkSpec(
      project,
      input.base ?? row.base,
      input.data_mounts ?? (JSON.parse(row.data_mounts) as DataMount[]),
    );
    const next = this.deps.store.update(
      row.id,
      {
        base: input.base ?? row.base,
        command:
          input.command === undefined ? row.command : input.command === null ? null : JSON.stringify(input.command),
        port: input.port ?? row.port,
        environment: input.environment ? JSON.stringify(input.environment) : row.environment,
        data_mounts: JSON.stringify(dataMounts),
        health_check: JSON.stringify({ ...(JSON.parse(row.health_check) as HealthCheck), ...input.health_check }),
        auth: input.auth ?? row.auth,
        lifecycle: input.lifecycle ? lifecycleJson(row.lifecycle, input.lifecycle) : row.lifecycle,
      },
      now(),
    );
    // The clocks apply to the live box at once (later colors get them at their create).
    const live = next.live_deployment ? this.deps.store.deployment(next.live_deployment) : undefined;
    const liveBox = live && this.deps.boxes.lookup(project, boxName(next, live.color));
    if (input.lifecycle && liveBox) await this.deps.boxes.setLifecycle(project, liveBox.name, input.lifecycle);
    // The event also clears the proxy's routes: a new auth applies to the next request.
    const service = this.toApi(next);
    this.deps.bus.emit('service.updated', { service }, project);
    return service;
  }

  /** A new deployment of the spec with `input`'s changes (kept in the service's spec). */
  deploy(project: string, name: string, input: DeployRequest): Deployment {
    const row = this.find(project, name);
    const base = input.base ?? row.base;
    this.checkSpec(project, base, JSON.parse(row.data_mounts) as DataMount[]);
    const environment = input.environment
      ? JSON.stringify({ ...(JSON.parse(row.environment) as Record<string, string>), ...input.environment })
      : row.environment;
    const command = input.command ? JSON.stringify(input.command) : row.command;
    const service = this.deps.store.update(row.id, { base, environment, command }, now());
    return this.queueDeployment(service, 'deploy', service);
  }

  /** Runs the previous live deployment's spec again (it becomes the service's spec); 409 when none was live before. */
  rollback(project: string, name: string): Deployment {
    const row = this.find(project, name);
    const previous = this.deps.store.previousLive(row);
    if (!previous || !row.live_deployment) {
      throw new ApiError('conflict', `service "${name}" has no earlier live deployment to roll back to`, {
        hint: 'roll back once a second deployment has gone live',
      });
    }
    const service = this.deps.store.update(
      row.id,
      { base: previous.base, command: previous.command, environment: previous.environment },
      now(),
    );
    return this.queueDeployment(service, 'rollback', previous);
  }

  private queueDeployment(service: ServiceRow, kind: DeploymentRow['kind'], spec: DeploymentSpec): Deployment {
    const dep = this.newDeployment(service, kind, spec);
    this.deps.store.insertDeployment(dep);
    this.deps.bus.emit('service.updated', { service: this.toApi(service) }, service.project);
    this.announce(service, dep);
    this.enqueue(service, dep);
    return toDeployment(service, dep);
  }

  /** Its color is the one not live now; settled again when it starts (an earlier deployment may go live meanwhile). */
  private newDeployment(service: ServiceRow, kind: DeploymentRow['kind'], spec: DeploymentSpec): DeploymentRow {
    const at = now();
    const live = service.live_deployment ? this.deps.store.deployment(service.live_deployment) : undefined;
    const color: ServiceColor = live?.color === 'blue' ? 'green' : 'blue';
    return {
      id: newId(SERVICE_ID_PREFIXES.deployment),
      service_id: service.id,
      kind,
      status: 'pending',
      color,
      box_id: null,
      base: spec.base,
      command: spec.command,
      environment: spec.environment,
      port: spec.port,
      data_mounts: spec.data_mounts,
      health_check: spec.health_check,
      step: `waiting for its turn`,
      reason: null,
      created_at: at,
      updated_at: at,
      live_at: null,
    };
  }

  private enqueue(service: ServiceRow, dep: DeploymentRow): void {
    const controller = this.deleting.get(service.id) ?? new AbortController();
    this.deleting.set(service.id, controller);
    const signal = AbortSignal.any([this.closing.signal, controller.signal]);
    const run = this.queue
      .run(service.id, async () => {
        if (signal.aborted) return;
        this.settleColor(dep.id);
        await this.deployer.run(dep.id, signal);
      })
      .catch(() => undefined);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** The new color is the one not live now. */
  private settleColor(deploymentId: string): void {
    const dep = this.deps.store.deployment(deploymentId);
    const service = dep && this.deps.store.getById(dep.service_id);
    if (!dep || !service || dep.status !== 'pending') return;
    const live = service.live_deployment ? this.deps.store.deployment(service.live_deployment) : undefined;
    const color: ServiceColor = live?.color === 'blue' ? 'green' : 'blue';
    if (color !== dep.color) this.deps.store.setColor(dep.id, color);
  }

  /**
   * Stops its deployments, removes both colors' boxes, then the service and
   * its route. A box that cannot be removed (the engine is down) fails the
   * delete and the service stays, so no box is forgotten.
   */
  async delete(project: string, name: string): Promise<void> {
    const row = this.find(project, name);
    const controller = this.deleting.get(row.id) ?? new AbortController();
    this.deleting.set(row.id, controller);
    controller.abort(new Error(`service "${name}" is being deleted`));
    await this.queue.run(row.id, async () => {
      for (const color of SERVICE_COLORS) await this.deployer.removeBox(row, boxName(row, color), true);
      const current = this.deps.store.getById(row.id);
      if (!current) return;
      const service = this.toApi(current);
      this.deps.store.delete(row.id);
      this.deleting.delete(row.id);
      this.deps.bus.emit('service.deleted', { service }, project);
    });
  }

  /** The proxy's route for the service `name` of `project` (null: no such service); live-route.ts. */
  route(project: string, name: string): ProxyRoute | null {
    return this.routes.route(project, name);
  }
}
