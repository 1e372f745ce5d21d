import type { FastifyBaseLogger } from 'fastify';
import {
  EngineError,
  type ContainerEngine,
  type ContainerEventKind,
  type ContainerState,
} from '../engine/container-engine';
import type { EngineMonitor } from '../engine/engine-monitor';
import { now } from '../ids';
import type { Disposable } from '../lifetime';
import type { EventBus } from '../events/event-bus';
import { readTail, REASON_TAIL_LINES } from '../engine/log-tail';
import { crashReason } from './crash-loop';
import { toBox, type BoxRow } from './box-row';
import { LABELS } from './container-spec';
import { IMAGE_LABELS } from './root-images';
import { CONTAINER_GONE, type BoxService } from './service';
import type { BoxStore } from './store';
import { RegionUnavailableError } from '../engine/regions/regions';

/** Events after which a box's container may no longer match its record. */
const RECONCILE_ON = new Set<ContainerEventKind>(['started', 'exited', 'oom', 'removed', 'paused', 'unpaused']);

/** The status reason of a box whose container was paused behind Boxdesk's back; resume thaws it. */
export const PAUSED_REASON =
  'its container was paused outside Boxdesk (e.g. docker pause), so nothing in it runs; resume the box to thaw it, or stop or delete it';

/** A refused restart of a main process is tried again this much later: the engine may be on its way down. */
export const RESTART_RETRY_MS = 2000;
/** Refused restarts in a row before the box turns `error` with the engine's reason. */
export const RESTART_ATTEMPTS = 3;

/**
 * Makes the engine agree with the store, at start, when the engine comes
 * back, and on engine events. The store is the desired state: unfinished
 * transitions are finished, a box whose container vanished becomes `error`
 * (never silently recreated), and a labelled container without a box goes.
 */
export class Reconciler implements Disposable {
  private watch: Disposable | null = null;
  private pending = new Map<string, NodeJS.Timeout>();
  /** Boxes with an OOM kill not yet reported as an event. */
  private readonly oomPending = new Set<string>();
  /** Boxes whose main process the engine refused to restart, with the attempts so far. */
  private readonly refusedRestarts = new Map<string, number>();
  private disposed = false;

  constructor(
    private readonly store: BoxStore,
    private readonly boxes: BoxService,
    private readonly engine: ContainerEngine,
    private readonly monitor: EngineMonitor,
    private readonly bus: EventBus,
    private readonly instanceId: string,
    private readonly log: FastifyBaseLogger,
    /** Warm-pool containers have no box: the pool (boxes/pool/) keeps and sorts them, never this. */
    private readonly pool: { holds(boxId: string): boolean } = { holds: () => false },
  ) {}

  /** Subscribes to engine events, then reconciles everything. Called each time the engine comes up. */
  async resync(): Promise<void> {
    // Exits seen across an engine outage are the engine's doing (it stops every container on
    // its way down), not a crash loop of the box: count afresh.
    for (const row of this.store.all()) this.boxes.crashes.reset(row.id);
    this.refusedRestarts.clear();
    await this.watchEvents();
    await this.reconcileAll();
  }

  private async watchEvents(): Promise<void> {
    await this.watch?.dispose();
    this.watch = await this.engine.watchEvents(
      { [LABELS.instance]: this.instanceId },
      (event) => {
        const boxId = event.labels[LABELS.id];
        if (boxId && event.kind === 'oom') {
          this.boxes.noteOom(event.containerId);
          this.oomPending.add(boxId);
        }
        if (boxId && RECONCILE_ON.has(event.kind)) this.schedule(boxId);
      },
      (err) => {
        if (this.disposed) return;
        this.log.warn({ err }, 'engine event stream ended');
        this.monitor.reportDown(err?.message ?? 'engine event stream ended');
      },
    );
  }

  private schedule(boxId: string, delayMs = 250): void {
    if (this.disposed) return;
    clearTimeout(this.pending.get(boxId));
    const timer = setTimeout(() => {
      this.pending.delete(boxId);
      void this.reconcileBox(boxId).catch((err) => this.log.warn({ err, boxId }, 'reconcile failed'));
    }, delayMs);
    timer.unref();
    this.pending.set(boxId, timer);
  }

  async reconcileAll(): Promise<void> {
    const containers = await this.engine.listContainers({ [LABELS.instance]: this.instanceId });
    const byBox = new Map<string, ContainerState[]>();
    for (const c of containers) {
      const id = c.labels[LABELS.id];
      if (id) byBox.set(id, [...(byBox.get(id) ?? []), c]);
    }
    for (const [boxId, list] of byBox) {
      if (!this.store.getById(boxId) && !this.pool.holds(boxId)) {
        for (const c of list) {
          this.log.warn({ container: c.id, boxId }, 'removing a labelled container that has no box');
          await this.engine.removeContainer(c.id);
        }
      }
    }
    for (const row of this.store.all()) {
      try {
        await this.reconcileBox(row.id);
      } catch (err) {
        // A region that is away leaves its boxes as they are until it is back; the others go on.
        if (err instanceof RegionUnavailableError) continue;
        if (err instanceof EngineError && err.kind === 'unavailable') throw err;
        this.log.warn({ err, box: row.name }, 'reconcile failed');
      }
    }
  }

  /**
   * Removes images of this instance that no box, snapshot or base uses (left
   * by a crash between a commit and its record). Only at start, before the API
   * answers: a create in flight holds an image no box names yet.
   */
  async collectOrphanImages(alsoInUse: ReadonlySet<string> = new Set()): Promise<void> {
    const rows = this.store.all();
    // Images named by boxes, and by snapshots and bases (alsoInUse), stay.
    const used = new Set([...rows.map((row) => row.image), ...alsoInUse]);
    // Every image this core commits or imports carries its instance label (boxes/root-images.ts).
    const ourImages = await this.engine.listImages({ [LABELS.instance]: this.instanceId });
    // Fork images from before images said their role have none.
    const forkIds = new Set(
      ourImages.filter((image) => (image.labels[IMAGE_LABELS.role] ?? 'fork') === 'fork').map((image) => image.id),
    );
    // Boxes recorded before the store said who owns an image: a box on one of our fork images owns it.
    for (const row of rows)
      if (!row.owns_image && forkIds.has(row.image)) this.store.update(row.id, { owns_image: 1 }, row.updated_at);
    for (const image of ourImages) {
      if (used.has(image.id)) continue;
      this.log.warn(
        { image: image.id, role: image.labels[IMAGE_LABELS.role] },
        'removing an image of this core that nothing uses',
      );
      await this.engine.removeImage(image.id);
    }
  }

  /** Brings one box to its desired state, serialised with every other operation on it. */
  reconcileBox(boxId: string): Promise<void> {
    return this.boxes.mutex.run(boxId, async () => {
      const row = this.store.getById(boxId);
      if (!row) {
        if (this.pool.holds(boxId)) return;
        for (const c of await this.engine.listContainers({ [LABELS.id]: boxId, [LABELS.instance]: this.instanceId }))
          await this.engine.removeContainer(c.id);
        return;
      }
      const container = row.container_id ? await this.engine.inspectContainer(row.container_id) : null;
      const oom = this.oomPending.delete(boxId);
      try {
        await this.converge(row, container);
      } catch (err) {
        if (err instanceof EngineError && err.kind === 'unavailable') throw err;
        this.setError(row, `could not reach the desired state: ${(err as Error).message}`);
      }
      // The main process lived through it: the kernel killed a process started by exec or a console.
      if (oom && container?.running)
        this.bus.emit('box.oom', { box: row.name, id: row.id, process: 'exec', at: now() }, row.project);
    });
  }

  private async converge(row: BoxRow, container: ContainerState | null): Promise<void> {
    switch (row.status) {
      case 'creating':
        // The create was recorded but never finished: finish it (adopting a container made before the crash).
        await this.boxes.bringUp(row);
        return;
      case 'deleting':
        await this.boxes.finishDelete(row);
        return;
    }
    if (!container) {
      // Forget the container: the box's status and hints then say it has none.
      if (row.container_id) this.store.update(row.id, { container_id: null }, now());
      if (row.status !== 'error' || row.container_id) this.setError(row, CONTAINER_GONE);
      return;
    }
    if (row.status === 'paused') {
      // Thawed outside Boxdesk: the box runs again; its main process gone meanwhile: as for a running box.
      if (container.state === 'running') this.setStatus(row, 'running');
      else if (!container.running) await this.mainExited(row, container);
      return;
    }
    if (row.status === 'error') {
      // A pause from outside that was undone outside: the box runs again.
      if (row.status_reason === PAUSED_REASON && container.state === 'running') this.setStatus(row, 'running');
      return;
    }
    if (row.status === 'stopping' || (row.status === 'stopped' && container.running)) {
      await this.boxes.stopContainer(row);
      if (row.status === 'stopping') this.setStatus(row, 'stopped');
    } else if (row.status === 'running' && container.state === 'paused') {
      this.setError(row, PAUSED_REASON);
    } else if (row.status === 'running' && !container.running) {
      await this.mainExited(row, container);
    } else if (row.status === 'resuming') {
      await this.boxes.startBox(row, container.id);
      this.setStatus(row, 'running');
    }
  }

  /**
   * The main process of a box that should run has exited: the core restarts
   * it, unless this makes three exits within 60 s or the kernel killed it for
   * memory; then the box turns `error`, saying how it ended and what it said last.
   */
  private async mainExited(row: BoxRow, container: ContainerState): Promise<void> {
    const oomKilled = container.oomKilled && container.exitCode === 137;
    // A retry after a refused restart is the same exit, not another one.
    const retrying = this.refusedRestarts.has(row.id);
    const { count, loop } = retrying ? { count: 0, loop: false } : this.boxes.crashes.record(row.id);
    if (!oomKilled && !loop) {
      if (!retrying)
        this.log.warn(
          { box: row.name, project: row.project, exitCode: container.exitCode, exits: count },
          'main process exited; restarting it',
        );
      await this.restartMain(row, container);
      return;
    }
    const output = await this.engine
      .logs(container.id, { tail: REASON_TAIL_LINES, follow: false })
      .then(readTail)
      .catch((err: Error) => `(could not read it: ${err.message})`);
    this.setError(row, crashReason(container.exitCode, oomKilled, count, output));
    if (oomKilled) this.bus.emit('box.oom', { box: row.name, id: row.id, process: 'main', at: now() }, row.project);
  }

  /**
   * Starts the main process again. An engine that refuses (one shutting down stops every
   * container, then refuses to start them: "failed to update store …") gets two more tries
   * a little later; by then it is gone (unavailable: the box waits for the engine to come
   * back) or it starts the container. Only a refusal that persists turns the box `error`.
   */
  private async restartMain(row: BoxRow, container: ContainerState): Promise<void> {
    try {
      await this.boxes.startBox(row, container.id);
      this.refusedRestarts.delete(row.id);
    } catch (err) {
      if (!(err instanceof EngineError) || err.kind === 'unavailable') throw err;
      const attempts = (this.refusedRestarts.get(row.id) ?? 0) + 1;
      if (attempts >= RESTART_ATTEMPTS) {
        this.refusedRestarts.delete(row.id);
        throw err;
      }
      this.refusedRestarts.set(row.id, attempts);
      this.log.warn(
        { box: row.name, project: row.project, err: err.message, attempts },
        'the engine refused to restart the main process; trying again shortly',
      );
      this.schedule(row.id, RESTART_RETRY_MS);
    }
  }

  private setStatus(row: BoxRow, status: BoxRow['status'], reason: string | null = null): void {
    const next = this.store.update(row.id, { status, status_reason: reason }, now());
    this.bus.emit('box.status', { box: toBox(next) }, next.project);
  }

  private setError(row: BoxRow, reason: string): void {
    this.log.warn({ box: row.name, project: row.project, reason }, 'box is in error');
    this.setStatus(row, 'error', reason);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const t of this.pending.values()) clearTimeout(t);
    await this.watch?.dispose();
  }
}
