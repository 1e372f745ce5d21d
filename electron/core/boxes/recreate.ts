import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { DEFAULT_GRACE_SECONDS } from '../../../shared/schemas/box';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import { now, randomBase32 } from '../ids';
import type { NewRoot } from './fork-source';
import type { RootImages } from './root-images';
import { LABELS, type BoxService } from './service';
import { toBox, type BoxRow, type BoxStore } from './store';

/** What `boxes.pending_root` holds: the new root, and whether the box was running. */
type PendingRoot = NewRoot & { run: boolean };

export interface RecreateDeps {
  store: BoxStore;
  engine: ContainerEngine;
  boxes: BoxService;
  roots: RootImages;
  bus: EventBus;
  instanceId: string;
  log: FastifyBaseLogger;
}

/**
 * The one way to replace a box's container while the box stays: id, name,
 * config, environment, tags and mounts are kept; the root is either a given
 * image (restore from a snapshot) or the box's own current root (committed
 * first, for changes the engine cannot make to a live container). A running
 * box runs again afterwards; a stopped box stays stopped.
 *
 * Crash safety: the new root is written to the box's row (`pending_root`)
 * before any container changes and cleared only when the swap is complete;
 * whenever the engine comes up, `finishPending` redoes the swap for any row
 * that still has one, so a crash never leaves a box without a container or
 * with two.
 */
export class BoxRecreator {
  constructor(private readonly deps: RecreateDeps) {}

  /** Replaces the container. The caller holds the box's mutex. */
  async recreate(row: BoxRow, root: NewRoot | 'current'): Promise<BoxRow> {
    if (!row.container_id || !['running', 'stopped'].includes(row.status)) {
      throw new ApiError(
        'conflict',
        `cannot replace the root of box "${row.name}" while it is ${row.status}${row.status_reason ? ` (${row.status_reason})` : ''}`,
      );
    }
    let target: NewRoot;
    if (root === 'current') {
      // Stopped first, so nothing written after the commit is lost.
      await this.deps.engine.stopContainer(row.container_id, row.grace_seconds ?? DEFAULT_GRACE_SECONDS);
      const image = await this.deps.roots.commit(row.container_id, row.image, 'root', row.id);
      target = { image: image.id, ownsImage: true, origin: row.origin };
    } else {
      target = root;
    }
    const pending: PendingRoot = { ...target, run: row.status === 'running' };
    this.deps.store.update(row.id, { pending_root: JSON.stringify(pending) }, now());
    try {
      return await this.swap(row.id);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'unavailable') throw err;
      // The intent stays recorded: the next start finishes the swap. Until then the box says why it is not usable.
      const reason = `replacing its container failed: ${(err as Error).message}; Boxdesk retries at its next start`;
      const next = this.deps.store.update(row.id, { status: 'error', status_reason: reason }, now());
      this.deps.bus.emit('box.status', { box: toBox(next) }, next.project);
      throw err;
    }
  }

  /** Finishes every recorded swap (after a crash). Each box under its own mutex. */
  async finishPending(): Promise<void> {
    for (const row of this.deps.store.all()) {
      if (!row.pending_root) continue;
      await this.deps.boxes.mutex.run(row.id, async () => {
        const current = this.deps.store.getById(row.id);
        if (!current?.pending_root) return;
        this.deps.log.warn(
          { box: current.name, project: current.project },
          'finishing a root replacement interrupted by a crash',
        );
        // Whatever the crash left (the old container, a new one not yet recorded) goes; the swap is redone.
        for (const c of await this.deps.engine.listContainers({
          [LABELS.id]: current.id,
          [LABELS.instance]: this.deps.instanceId,
        }))
          await this.deps.engine.removeContainer(c.id);
        const done = await this.swap(this.deps.store.update(current.id, { container_id: null }, now()).id);
        // A swap that failed earlier left the box in error; finished, it is what it was before.
        if (done.status === 'error') {
          const next = this.deps.store.update(
            done.id,
            {
              status: (JSON.parse(current.pending_root) as PendingRoot).run ? 'running' : 'stopped',
              status_reason: null,
            },
            now(),
          );
          this.deps.bus.emit('box.status', { box: toBox(next) }, next.project);
        }
      });
    }
  }

  /**
   * Idempotent. The new container is made first (under a name of its own) and
   * recorded; then the old ones go while it starts. The intent is cleared
   * last, so a crash at any point is redone from the start by finishPending.
   */
  private async swap(boxId: string): Promise<BoxRow> {
    const { engine, store } = this.deps;
    let row = store.getById(boxId)!;
    const target = JSON.parse(row.pending_root!) as PendingRoot;
    const previous = { image: row.image, owned: row.owns_image === 1 };
    const spec = this.deps.boxes.containerSpec({ ...row, image: target.image });
    const containerId = await engine.createContainer({ ...spec, name: `${spec.name}-${randomBase32(4)}` });
    row = store.update(
      row.id,
      { container_id: containerId, image: target.image, owns_image: target.ownsImage ? 1 : 0, origin: target.origin },
      now(),
    );
    const shouldRun = target.run;
    const removeOld = async () => {
      for (const c of await engine.listContainers({ [LABELS.id]: row.id, [LABELS.instance]: this.deps.instanceId }))
        if (c.id !== containerId) await engine.removeContainer(c.id);
      // The old root image goes when the box owned it (the engine keeps it while something else builds on it).
      if (previous.owned && previous.image !== target.image)
        await engine.removeImage(previous.image).catch(() => undefined);
    };
    await Promise.all([removeOld(), shouldRun ? engine.startContainer(containerId) : Promise.resolve()]);
    row = store.update(row.id, { pending_root: null }, now());
    this.deps.bus.emit('box.updated', { box: toBox(row) }, row.project);
    return row;
  }
}
