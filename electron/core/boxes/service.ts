import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import {
  DEFAULT_GRACE_SECONDS,
  MAX_GRACE_SECONDS,
  type Box,
  type BoxCreate,
  type BoxListQuery,
  type BoxStatus,
  type BoxUpdate,
  type Config,
  type ResolvedConfig,
} from '../../../shared/schemas/box';
import { EngineError, type ContainerEngine, type ContainerSpec } from '../engine/container-engine';
import { now } from '../ids';
import { KeyedMutex, QueueWaitError } from '../keyed-mutex';
import { BoxCreation, resolveNetwork, type BoxDeps, type InternalCreate } from './box-create';
import { decodeCursor, encodeCursor, resolveConfig } from './box-config';
import { configOf, limitsOf, networkedOf, networkOf, toBox, type BoxRow } from './box-row';
import { assertTransition, type BoxOperation } from './box-state-machine';
import { applyBoxUpdate, applyNetworkChange } from './box-update';
import { freeze, thawFrozen } from './box-freeze';
import { StatusWriter } from './box-status';
import { thaw } from './lifecycle/sleep';
import { containerRefused, deletedMeanwhile, removeBox } from './box-removal';
import { CrashLoopDetector } from './crash-loop';
import type { PoolClaims } from './pool/pool-fit';
import type { BoxStore } from './store';
import { RegionUnavailableError } from '../engine/regions/regions';

export interface BoxServiceDeps extends BoxDeps {
  log: FastifyBaseLogger;
  /** How long a mutation may wait behind the box's other operations before it answers 409 (default 60 s). */
  queueWaitMs?: number;
}

export const DEFAULT_QUEUE_WAIT_MS = 60_000;

export const CONTAINER_GONE = 'its container was removed outside Boxdesk; delete the box and create it again';

/** What a mutation knows of its caller: a client that goes away drops the queued work. */
export interface CallOptions {
  signal?: AbortSignal;
  /** The status reason the change leaves (the lifecycle clocks say why they changed the box). */
  reason?: string;
  /** Checked once the box's turn in its queue comes: false leaves the box as it is (a clock no longer due). */
  onlyIf?: () => boolean;
}

export class BoxService {
  readonly mutex = new KeyedMutex();
  /** Main-process exits per box, for the crash-loop rule (the reconciler records them). */
  readonly crashes = new CrashLoopDetector();
  /** Boxes whose delete killed the container under an operation still in the queue. */
  private readonly preempted = new Set<string>();
  /** Last OOM kill seen per container (engine events), for exec to report. */
  private readonly ooms = new Map<string, number>();
  private readonly queueWaitMs: number;
  /** Awaited after each update is recorded, before it is answered (the proxy's edge takes a new port first). */
  private readonly updated: ((boxId: string) => Promise<void>)[] = [];
  private readonly status: StatusWriter;
  private readonly creation: BoxCreation;

  constructor(private readonly deps: BoxServiceDeps) {
    this.queueWaitMs = deps.queueWaitMs ?? DEFAULT_QUEUE_WAIT_MS;
    this.status = new StatusWriter(deps.store, deps.bus);
    this.creation = new BoxCreation({ ...deps, status: this.status, boxes: this });
  }

  /** Creates that fit take a warm-pool container (boxes/pool/). */
  usePool(pool: PoolClaims): void {
    this.creation.pool = pool;
  }

  /** Runs `work` with the box paused for one instant of its root and workspace (box-freeze.ts). */
  freeze<T>(row: BoxRow, work: () => Promise<T>): Promise<T> {
    return freeze(this.store, this.engine, row, work);
  }

  /** Thaws boxes a snapshot or fork froze when the core died (box-freeze.ts). */
  thawFrozen(): Promise<void> {
    return thawFrozen(this.store, this.engine, this.mutex, this.deps.log);
  }

  /** Records what the box's /workspace held when last measured. */
  recordSizes(boxId: string, sizes: { size_bytes: number; exclusive_bytes: number | null }): void {
    if (this.store.getById(boxId)) this.store.update(boxId, sizes);
  }

  /** Runs `work` in the box's queue, behind its other operations (no bound on the wait). */
  withLock<T>(boxId: string, work: () => Promise<T>): Promise<T> {
    return this.mutex.run(boxId, work);
  }

  /**
   * Runs a mutation in the box's queue, in arrival order. One that would wait
   * longer than the bound answers 409; one whose client has gone is dropped.
   */
  private queued<T>(row: BoxRow, task: () => Promise<T>, options: CallOptions = {}): Promise<T> {
    return this.mutex
      .run(row.id, task, { signal: options.signal, maxWaitMs: this.queueWaitMs })
      .catch((err: unknown) => {
        if (!(err instanceof QueueWaitError)) throw err;
        const status = this.store.getById(row.id)?.status ?? row.status;
        if (err.reason === 'aborted')
          throw new ApiError(
            'conflict',
            `the client went away while this request waited for box "${row.name}"; nothing was done`,
          );
        const hint = 'try again later; a delete does not wait behind other operations';
        throw new ApiError(
          'conflict',
          `box "${row.name}" is busy: another operation on it (it is ${status}) did not finish within ${Math.round(this.queueWaitMs / 1000)} s; ${hint}`,
          { hint },
        );
      });
  }

  private check(row: BoxRow, op: BoxOperation): void {
    assertTransition({ name: row.name, status: row.status, hasContainer: row.container_id !== null }, op);
  }

  /** The grace period a stop really waits: the box's own, at most MAX_GRACE_SECONDS. */
  graceOf(row: BoxRow): number {
    return Math.min(row.grace_seconds ?? DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS);
  }

  /** Notes an OOM kill in a container (from an engine event). */
  noteOom(containerId: string): void {
    this.ooms.set(containerId, Date.now());
  }

  /** Whether the kernel OOM-killed something in the container since `since` (epoch ms). */
  oomSince(containerId: string, since: number): boolean {
    return (this.ooms.get(containerId) ?? 0) >= since;
  }

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
    const tags = (query.tag === undefined ? [] : Array.isArray(query.tag) ? query.tag : [query.tag]).map(
      (t): [string, string] => {
        const i = t.indexOf(':');
        return [t.slice(0, i), t.slice(i + 1)];
      },
    );
    const limit = query.limit ?? 100;
    const rows = this.store.list(project, {
      status: query.status,
      tags,
      after: query.cursor ? decodeCursor(query.cursor) : undefined,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { items: page.map(toBox), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
  }

  private resolveConfig(input: Config | undefined, current: ResolvedConfig): ResolvedConfig {
    return resolveConfig(input, current, this.deps.regions, 'update');
  }

  create(project: string, input: BoxCreate, internal: InternalCreate = {}): Promise<Box> {
    return this.creation.create(project, input, internal);
  }

  /** Creates (or adopts) the box's container and starts it (box-create.ts); the reconciler finishes a create with it. */
  bringUp(row: BoxRow): Promise<BoxRow> {
    return this.creation.bringUp(row);
  }

  containerSpec(row: BoxRow): ContainerSpec {
    return this.creation.containerSpec(row);
  }

  private requireEngine(): void {
    this.deps.monitor.requireUp();
  }

  setStatus(row: BoxRow, status: BoxRow['status'], reason: string | null = null): BoxRow {
    return this.status.set(row, status, reason);
  }

  /**
   * Runs an engine step; an unreachable engine leaves the transient status for
   * the reconciler to finish. A step cut short by a delete stands aside.
   */
  async engineStep(row: BoxRow, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (this.preempted.has(row.id)) throw deletedMeanwhile(row);
      if (err instanceof EngineError && err.kind === 'unavailable') {
        // Another region's engine is its own monitor's (the router told it already).
        if (!(err instanceof RegionUnavailableError)) this.deps.monitor.reportDown(err.message);
        throw err;
      }
      const reason = err instanceof Error ? err.message : String(err);
      this.setStatus(row, 'error', reason);
      throw err;
    }
    if (this.preempted.has(row.id)) throw deletedMeanwhile(row);
  }

  /**
   * A move of the box in its queue: the box as it is by then, checked for `op`. One already
   * `settled` answers as it is; otherwise the engine must be up, and `move` answers the box moved.
   */
  transition(
    project: string,
    name: string,
    op: BoxOperation,
    settled: BoxStatus,
    options: CallOptions,
    move: (row: BoxRow) => Promise<BoxRow>,
  ): Promise<Box> {
    const task = async () => {
      const row = this.find(project, name);
      this.check(row, op);
      if (row.status === settled || (options.onlyIf && !options.onlyIf())) return toBox(row);
      this.requireEngine();
      return toBox(await move(row));
    };
    return this.queued(this.find(project, name), task, options);
  }

  stop(project: string, name: string, options: CallOptions = {}): Promise<Box> {
    return this.transition(project, name, 'stop', 'stopped', options, async (row) => {
      const stopping = this.setStatus(row, 'stopping');
      await this.engineStep(stopping, () => this.stopContainer(stopping));
      return this.setStatus(stopping, 'stopped', options.reason ?? null);
    });
  }

  /** SIGTERM, the grace period (bounded), SIGKILL. A container paused from outside is thawed first so it can end. */
  async stopContainer(row: BoxRow): Promise<void> {
    if (!row.container_id) return;
    if (row.status === 'error' || row.status === 'stopping')
      await this.engine.unpauseContainer(row.container_id).catch(() => undefined);
    await this.engine.stopContainer(row.container_id, this.graceOf(row));
  }

  resume(project: string, name: string, options: CallOptions = {}): Promise<Box> {
    return this.transition(project, name, 'resume', 'running', options, async (found) => {
      if (found.status === 'paused') return thaw(this.engine, this, found);
      const fromError = found.status === 'error';
      const row = this.setStatus(found, 'resuming');
      this.crashes.reset(row.id);
      await this.engineStep(row, async () => {
        const id = row.container_id!;
        if (fromError) {
          // An error box may be paused from outside, or hold limits recorded while it was down.
          await this.engine.unpauseContainer(id);
          await this.engine.updateContainer(id, limitsOf(configOf(row)));
        }
        await this.startBox(row, id);
      }).catch((err: unknown) => {
        if (!(err instanceof EngineError && err.kind === 'not_found')) throw err;
        this.store.update(row.id, { container_id: null }, now());
        this.setStatus(row, 'error', CONTAINER_GONE);
        throw new ApiError('conflict', `cannot resume box "${name}": ${CONTAINER_GONE}`, {
          hint: 'delete the box and create it again',
        });
      });
      return this.setStatus(row, 'running');
    });
  }

  /** Makes a container on the project's network, the network made first unless it is there. */
  onNetwork(project: string, make: () => Promise<string>): Promise<string> {
    return this.deps.networking.onNetwork(project, make);
  }

  /** Starts the box's container on its project's network, with its packet filter (networks/box-networking.ts). */
  startBox(row: BoxRow, containerId: string): Promise<void> {
    return this.deps.networking.start(networkedOf(row), containerId);
  }

  /** DELETE of a box by a client: the guards others registered first (409 naming what owns it), then the delete. */
  async deleteForClient(project: string, name: string, options: CallOptions = {}): Promise<void> {
    const row = this.find(project, name);
    for (const guard of this.deps.extensions.deleteGuards) guard(row);
    return this.delete(project, name, options);
  }

  /**
   * Delete always wins: when another operation holds the box's queue (a stop
   * waiting out a long grace period on frozen processes), the container is
   * killed at once, the pending operation answers 409, and the delete runs next.
   */
  async delete(project: string, name: string, options: CallOptions = {}): Promise<void> {
    const first = this.find(project, name);
    if (
      this.mutex.isBusy(first.id) &&
      first.container_id &&
      first.status !== 'creating' &&
      first.status !== 'deleting'
    ) {
      this.requireEngine();
      this.preempted.add(first.id);
      this.setStatus(first, 'deleting');
      await this.engine.removeContainer(first.container_id);
    }
    try {
      await this.queued(
        first,
        async () => {
          // The reconciler may have finished this delete (after the kill) while it waited: done.
          if (this.preempted.has(first.id) && !this.store.getById(first.id)) return;
          let row = this.find(project, name);
          if (!this.preempted.has(row.id)) this.check(row, 'delete');
          this.requireEngine();
          row = this.setStatus(row, 'deleting');
          this.preempted.delete(row.id);
          await this.engineStep(row, () => this.finishDelete(row));
        },
        options,
      );
    } finally {
      this.preempted.delete(first.id);
    }
  }

  finishDelete(row: BoxRow): Promise<void> {
    return removeBox(this.deps, this, row);
  }

  /** What the service remembers of a box that is gone (box-removal.ts). */
  forgetBox(boxId: string, containerId: string | null): void {
    this.crashes.reset(boxId);
    if (containerId) this.ooms.delete(containerId);
  }

  update(project: string, name: string, input: BoxUpdate, options: CallOptions = {}): Promise<Box> {
    return this.queued(
      this.find(project, name),
      async () => {
        const row = this.find(project, name);
        this.check(row, 'update');
        const config = this.resolveConfig(input.config, configOf(row));
        const network = input.network ? resolveNetwork(input.network, networkOf(row)) : undefined;
        if (network) await this.deps.networking.check(network);
        if (input.secrets) this.deps.secrets.check(input.secrets, 'body.secrets');
        const deps = {
          store: this.store,
          engine: this.engine,
          workspaces: this.deps.workspaces,
          networking: this.deps.networking,
          requireEngine: () => this.requireEngine(),
        };
        let next = await applyBoxUpdate(deps, row, input, config);
        if (network || input.secrets) next = await applyNetworkChange(deps, next, network, input.secrets);
        const box = toBox(next);
        this.deps.bus.emit('box.updated', { box }, project);
        await Promise.all(this.updated.map((listener) => listener(box.id)));
        return box;
      },
      options,
    );
  }

  /** `listener` is awaited after each update of a box is recorded, before the update is answered. */
  afterUpdate(listener: (boxId: string) => Promise<void>): void {
    this.updated.push(listener);
  }

  async logs(project: string, name: string, options: { tail?: number; follow: boolean }): Promise<Readable> {
    const row = this.find(project, name);
    this.check(row, 'logs');
    if (!row.container_id)
      throw new ApiError('conflict', `box "${name}" has no container (${row.status_reason ?? row.status})`);
    this.requireEngine();
    return this.engine.logs(row.container_id, options);
  }

  /** The running box's container, for exec, console and stats. */
  requireRunning(project: string, name: string, op: BoxOperation = 'exec'): BoxRow {
    const row = this.find(project, name);
    this.check(row, op);
    this.requireEngine();
    return row;
  }

  containerRefused(row: BoxRow, err: EngineError): ApiError {
    return containerRefused(row, err);
  }
}
