import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import { DEFAULT_CONFIG, DEFAULT_GRACE_SECONDS, type Box, type BoxCreate, type BoxListQuery, type BoxUpdate, type Config, type ResolvedConfig } from '../../../shared/schemas/box';
import { DEFAULT_BASE, type BaseService } from '../bases/service';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import type { EngineMonitor } from '../engine/engine-monitor';
import type { EventBus } from '../events/event-bus';
import { newId, now } from '../ids';
import { assertTransition } from './box-state-machine';
import { KeyedMutex } from './keyed-mutex';
import { toBox, type BoxRow, type BoxStore } from './store';

/** Keeps the box alive; exits at once on SIGTERM so stop is quick. An init (tini) reaps zombies. */
export const MAIN_COMMAND = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 2147483647 & wait $!; done"];

export const LABELS = { id: 'boxdesk.id', project: 'boxdesk.project', box: 'boxdesk.box', instance: 'boxdesk.instance', forkOf: 'boxdesk.fork-of' } as const;

export interface BoxServiceDeps {
  store: BoxStore;
  engine: ContainerEngine;
  bases: BaseService;
  bus: EventBus;
  monitor: EngineMonitor;
  instanceId: string;
  log: FastifyBaseLogger;
}

function decodeCursor(cursor: string): { created_at: string; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof value.c === 'string' && typeof value.i === 'string') return { created_at: value.c, id: value.i };
  } catch {
    // fall through
  }
  throw new ApiError('invalid_body', 'query.cursor is not a cursor this API returned', { errors: [{ path: 'query.cursor', message: 'is not valid' }] });
}

function encodeCursor(row: BoxRow): string {
  return Buffer.from(JSON.stringify({ c: row.created_at, i: row.id })).toString('base64url');
}

export class BoxService {
  readonly mutex = new KeyedMutex();

  constructor(private readonly deps: BoxServiceDeps) {}

  private get store(): BoxStore {
    return this.deps.store;
  }

  private get engine(): ContainerEngine {
    return this.deps.engine;
  }

  /** The box, or 404. */
  find(project: string, name: string): BoxRow {
    const row = this.store.get(project, name);
    if (!row) throw new ApiError('not_found', `box "${name}" not found in project "${project}"`);
    return row;
  }

  get(project: string, name: string): Box {
    return toBox(this.find(project, name));
  }

  list(project: string, query: BoxListQuery): { items: Box[]; next_cursor: string | null } {
    const tags = (query.tag === undefined ? [] : Array.isArray(query.tag) ? query.tag : [query.tag]).map((t): [string, string] => {
      const i = t.indexOf(':');
      return [t.slice(0, i), t.slice(i + 1)];
    });
    const limit = query.limit ?? 100;
    const rows = this.store.list(project, { status: query.status, tags, after: query.cursor ? decodeCursor(query.cursor) : undefined, limit: limit + 1 });
    const page = rows.slice(0, limit);
    return { items: page.map(toBox), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
  }

  /** Checks limits against what the engine can give; the schema already checked types and minimums. */
  private resolveConfig(input: Config | undefined, current: ResolvedConfig): ResolvedConfig {
    const config = { ...current, ...input };
    if (config.region !== 'local') {
      throw new ApiError('invalid_body', `config.region "${config.region}" is not available: "local" is the only region of this machine`, {
        errors: [{ path: 'body.config.region', message: 'must be "local"' }],
      });
    }
    const info = this.deps.monitor.current.info;
    if (info && config.cpus > info.cpus) {
      throw new ApiError('invalid_body', `config.cpus ${config.cpus} is more than the ${info.cpus} CPUs this machine has`, { errors: [{ path: 'body.config.cpus', message: `must be at most ${info.cpus}` }] });
    }
    const ramLimit = info ? Math.floor(info.memoryBytes / 1024 / 1024) : Infinity;
    if (config.ram_mb > ramLimit) {
      throw new ApiError('invalid_body', `config.ram_mb ${config.ram_mb} is more than the ${ramLimit} MiB this machine has`, { errors: [{ path: 'body.config.ram_mb', message: `must be at most ${ramLimit}` }] });
    }
    return config;
  }

  private requireEngine(): void {
    const health = this.deps.monitor.current;
    if (!health.up) throw new ApiError('engine_unavailable', `the container engine is unreachable (${health.reason}); start it and try again`);
  }

  private setStatus(row: BoxRow, status: BoxRow['status'], reason: string | null = null): BoxRow {
    const next = this.store.update(row.id, { status, status_reason: reason }, now());
    this.deps.bus.emit('box.status', { box: toBox(next) }, next.project);
    return next;
  }

  async create(project: string, input: BoxCreate): Promise<Box> {
    if (input.fork !== undefined && input.base !== undefined) {
      throw new ApiError('invalid_body', 'give either fork or base, not both', { errors: [{ path: 'body.fork', message: 'cannot be combined with base' }] });
    }
    const source = input.fork !== undefined ? this.find(project, input.fork) : null;
    // No volume exists until the volumes resource does: any mount names an unknown volume.
    const mount = input.data_mounts?.[0];
    if (mount) throw new ApiError('not_found', `volume "${mount.name}" not found in project "${project}"`);
    this.requireEngine();
    const config = this.resolveConfig(input.config, source ? (JSON.parse(source.config) as ResolvedConfig) : DEFAULT_CONFIG);
    const baseName = source ? source.base : (input.base ?? DEFAULT_BASE);
    if (this.store.get(project, input.name)) throw new ApiError('already_exists', `box "${input.name}" already exists in project "${project}"`);
    const image = source ? await this.forkImage(source) : await this.deps.bases.resolveImage(baseName!);
    const at = now();
    const row: BoxRow = {
      id: newId('box'),
      project,
      name: input.name,
      status: 'creating',
      status_reason: null,
      base: baseName,
      image,
      owns_image: source ? 1 : 0,
      config: JSON.stringify(config),
      storage_enforced: this.deps.monitor.current.info?.storageLimit ? 1 : 0,
      data_mounts: input.data_mounts ? JSON.stringify(input.data_mounts) : null,
      environment: input.environment ? JSON.stringify(input.environment) : (source?.environment ?? '{}'),
      tags: JSON.stringify(input.tags ?? {}),
      port: null,
      grace_seconds: null,
      container_id: null,
      url: null,
      url_auth: null,
      published_domains: null,
      created_at: at,
      updated_at: at,
    };
    // The unique (project, name) constraint decides races: one insert wins, the others get 409.
    if (!this.store.insert(row)) {
      if (source) await this.engine.removeImage(image).catch(() => undefined);
      throw new ApiError('already_exists', `box "${input.name}" already exists in project "${project}"`);
    }
    this.deps.bus.emit('box.created', { box: toBox(row) }, project);
    return this.mutex.run(row.id, async () => {
      try {
        return toBox(await this.bringUp(row));
      } catch (err) {
        // Nothing half-made survives a failed create: the container and the row go.
        const current = this.store.getById(row.id);
        if (current?.container_id) await this.engine.removeContainer(current.container_id).catch(() => undefined);
        if (source) await this.engine.removeImage(image).catch(() => undefined);
        this.store.delete(row.id);
        this.deps.bus.emit('box.deleted', { box: toBox(current ?? row) }, project);
        throw err;
      }
    });
  }

  /** A copy-on-write image of the source box's root at this instant; the source keeps running. */
  private forkImage(source: BoxRow): Promise<string> {
    return this.mutex.run(source.id, async () => {
      const row = this.find(source.project, source.name);
      if (!row.container_id || !['running', 'stopped'].includes(row.status)) {
        throw new ApiError('conflict', `cannot fork box "${row.name}" while it is ${row.status}`);
      }
      return this.engine.commitContainer(row.container_id, { [LABELS.instance]: this.deps.instanceId, [LABELS.forkOf]: row.id });
    });
  }

  /** Creates (or adopts, after a crash) the box's container and starts it. */
  async bringUp(row: BoxRow): Promise<BoxRow> {
    let containerId = row.container_id;
    if (!containerId) {
      const existing = await this.engine.listContainers({ [LABELS.id]: row.id, [LABELS.instance]: this.deps.instanceId });
      containerId = existing[0]?.id ?? (await this.engine.createContainer(this.containerSpec(row)));
      row = this.store.update(row.id, { container_id: containerId }, now());
    }
    await this.engine.startContainer(containerId);
    return this.setStatus(row, 'running');
  }

  private containerSpec(row: BoxRow) {
    const config = JSON.parse(row.config) as ResolvedConfig;
    return {
      name: `boxdesk-${row.project}-${row.name}-${row.id.slice(4, 12)}`,
      image: row.image,
      command: MAIN_COMMAND,
      hostname: row.name,
      // The box environment is applied to each exec and console as it starts, never baked into the
      // container: a baked-in value would outlive an update that removes it.
      env: {},
      labels: { [LABELS.id]: row.id, [LABELS.project]: row.project, [LABELS.box]: row.name, [LABELS.instance]: this.deps.instanceId },
      limits: { cpus: config.cpus, ramMb: config.ram_mb },
      storageGb: row.storage_enforced ? config.storage_gb : null,
      graceSeconds: row.grace_seconds ?? DEFAULT_GRACE_SECONDS,
    };
  }

  /** Runs an engine step; an unreachable engine leaves the transient status for the reconciler to finish. */
  private async engineStep(row: BoxRow, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'unavailable') {
        this.deps.monitor.reportDown(err.message);
        throw err;
      }
      const reason = err instanceof Error ? err.message : String(err);
      this.setStatus(row, 'error', reason);
      throw err;
    }
  }

  stop(project: string, name: string): Promise<Box> {
    return this.mutex.run(this.find(project, name).id, async () => {
      let row = this.find(project, name);
      assertTransition(name, row.status, 'stop');
      if (row.status === 'stopped') return toBox(row);
      this.requireEngine();
      row = this.setStatus(row, 'stopping');
      await this.engineStep(row, () => this.stopContainer(row));
      return toBox(this.setStatus(row, 'stopped'));
    });
  }

  async stopContainer(row: BoxRow): Promise<void> {
    if (row.container_id) await this.engine.stopContainer(row.container_id, row.grace_seconds ?? DEFAULT_GRACE_SECONDS);
  }

  resume(project: string, name: string): Promise<Box> {
    return this.mutex.run(this.find(project, name).id, async () => {
      let row = this.find(project, name);
      assertTransition(name, row.status, 'resume');
      if (row.status === 'running') return toBox(row);
      this.requireEngine();
      row = this.setStatus(row, 'resuming');
      await this.engineStep(row, () => this.engine.startContainer(row.container_id!));
      return toBox(this.setStatus(row, 'running'));
    });
  }

  delete(project: string, name: string): Promise<void> {
    return this.mutex.run(this.find(project, name).id, async () => {
      let row = this.find(project, name);
      assertTransition(name, row.status, 'delete');
      this.requireEngine();
      row = this.setStatus(row, 'deleting');
      await this.engineStep(row, () => this.finishDelete(row));
    });
  }

  async finishDelete(row: BoxRow): Promise<void> {
    if (row.container_id) await this.engine.removeContainer(row.container_id);
    const leftovers = await this.engine.listContainers({ [LABELS.id]: row.id, [LABELS.instance]: this.deps.instanceId });
    for (const c of leftovers) await this.engine.removeContainer(c.id);
    // A fork's committed image goes with it (the engine keeps it while other forks build on it).
    if (row.owns_image) await this.engine.removeImage(row.image);
    this.store.delete(row.id);
    this.deps.bus.emit('box.deleted', { box: toBox(row) }, row.project);
  }

  update(project: string, name: string, input: BoxUpdate): Promise<Box> {
    return this.mutex.run(this.find(project, name).id, async () => {
      const row = this.find(project, name);
      assertTransition(name, row.status, 'update');
      const current = JSON.parse(row.config) as ResolvedConfig;
      const config = this.resolveConfig(input.config, current);
      if (row.storage_enforced && config.storage_gb !== current.storage_gb) {
        throw new ApiError('conflict', 'config.storage_gb is enforced by the engine and can only be set when the box is created', {
          errors: [{ path: 'body.config.storage_gb', message: 'cannot change after create' }],
        });
      }
      if ((config.cpus !== current.cpus || config.ram_mb !== current.ram_mb) && row.container_id) {
        this.requireEngine();
        await this.engine.updateContainer(row.container_id, { cpus: config.cpus, ramMb: config.ram_mb });
      }
      const next = this.store.update(
        row.id,
        {
          config: JSON.stringify(config),
          ...(input.environment !== undefined ? { environment: JSON.stringify(input.environment) } : {}),
          ...(input.tags !== undefined ? { tags: JSON.stringify(input.tags) } : {}),
          ...(input.port !== undefined ? { port: input.port } : {}),
          ...(input.termination_grace_period_seconds !== undefined ? { grace_seconds: input.termination_grace_period_seconds } : {}),
        },
        now(),
      );
      const box = toBox(next);
      this.deps.bus.emit('box.updated', { box }, project);
      return box;
    });
  }

  async logs(project: string, name: string, options: { tail?: number; follow: boolean }): Promise<Readable> {
    const row = this.find(project, name);
    assertTransition(name, row.status, 'logs');
    if (!row.container_id) throw new ApiError('conflict', `box "${name}" has no container (${row.status_reason ?? row.status})`);
    this.requireEngine();
    return this.engine.logs(row.container_id, options);
  }

  /** The running box's container, for exec and console. */
  requireRunning(project: string, name: string): BoxRow {
    const row = this.find(project, name);
    assertTransition(name, row.status, 'exec');
    this.requireEngine();
    return row;
  }
}
