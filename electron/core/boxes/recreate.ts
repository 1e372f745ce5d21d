import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { DEFAULT_GRACE_SECONDS } from '../../../shared/schemas/box';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import { now, randomBase32 } from '../ids';
import { toBox, type BoxRow, type NewRoot, type Workspace } from './box-row';
import { LABELS } from './container-spec';
import type { RootImages } from './root-images';
import type { BoxService } from './service';
import type { BoxStore } from './store';
import type { BoxWorkspaces } from './workspaces';

/**
 * What `boxes.pending_root` holds: the new root, whether the box was running, what the replacement
 * is (`restore`: a snapshot's root; `recreate`: the box's own root, committed) and the container it
 * replaces; for a restore of a snapshot with a workspace, the new workspace (a clone of the
 * snapshot's, chosen before it is made) and the one it replaces. Rows written before `kind` and
 * `old` existed are redone as they always were.
 */
type PendingRoot = NewRoot & {
  run: boolean;
  kind?: 'restore' | 'recreate';
  old?: string | null;
  workspace?: Workspace;
  oldWorkspace?: string | null;
};

/** The workspace items a root replacement in flight names (start-up recovery keeps them). */
export function workspacesInIntent(row: BoxRow): string[] {
  if (!row.pending_root) return [];
  const pending = JSON.parse(row.pending_root) as PendingRoot;
  return [pending.workspace?.item, pending.oldWorkspace].filter((i): i is string => Boolean(i));
}

export interface RecreateDeps {
  store: BoxStore;
  engine: ContainerEngine;
  boxes: BoxService;
  roots: RootImages;
  workspaces: BoxWorkspaces;
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
 * before any container changes. The new container is made beside the old one;
 * recording it on the row is the swap. A failure before the swap removes the
 * new container and clears the intent: the box is exactly as it was. After the
 * swap the rest (the old container goes, the new one starts) is finished
 * whenever the engine comes up (`finishPending`). At start, a restore whose
 * swap was not recorded is rolled back, never redone.
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
    const run = row.status === 'running';
    let target: NewRoot;
    if (root === 'current') {
      // Stopped first, so nothing written after the commit is lost.
      await this.deps.engine.stopContainer(row.container_id, row.grace_seconds ?? DEFAULT_GRACE_SECONDS);
      try {
        const image = await this.deps.roots.commit(row.container_id, row.image, 'root', row.id);
        target = { image: image.id, ownsImage: true, origin: row.origin };
      } catch (err) {
        if (run) await this.deps.engine.startContainer(row.container_id).catch(() => undefined);
        throw err;
      }
    } else {
      target = root;
    }
    const kind = root === 'current' ? 'recreate' : 'restore';
    const pending: PendingRoot = { ...target, run, kind, old: row.container_id };
    const from = root === 'current' ? null : (root.workspaceFrom ?? null);
    this.deps.store.update(row.id, { pending_root: JSON.stringify(pending) }, now());
    let created: string;
    try {
      if (from) {
        // The new workspace is a clone of the snapshot's (or empty), made beside the box's own; both named in the intent.
        const workspace = await this.deps.workspaces.make(row.id, row.workspace_quota, from);
        pending.workspace = workspace;
        pending.oldWorkspace = row.workspace_item;
        this.deps.store.update(row.id, { pending_root: JSON.stringify(pending) }, now());
      }
      const beside = this.deps.store.getById(row.id)!;
      const ws = pending.workspace;
      created = await this.createBeside(
        ws ? { ...beside, workspace_item: ws.item, workspace_volume: ws.volume } : beside,
        target.image,
      );
    } catch (err) {
      await this.rollBack(row.id).catch((cleanup: unknown) =>
        this.deps.log.warn({ err: cleanup, box: row.name }, 'the replacement is rolled back at the next start'),
      );
      throw err;
    }
    try {
      return await this.swap(row.id, created);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'unavailable') throw err;
      // The swap is recorded: the next start finishes it. Until then the box says why it is not usable.
      const reason = `replacing its container failed: ${(err as Error).message}; Boxdesk retries at its next start`;
      const next = this.deps.store.update(row.id, { status: 'error', status_reason: reason }, now());
      this.deps.bus.emit('box.status', { box: toBox(next) }, next.project);
      throw err;
    }
  }

  /** The new container, made under a name of its own beside the old one; not recorded yet. */
  private async createBeside(row: BoxRow, image: string): Promise<string> {
    const spec = this.deps.boxes.containerSpec({ ...row, image });
    return this.deps.engine.createContainer({ ...spec, name: `${spec.name}-${randomBase32(4)}` });
  }

  /** Before the swap: every container of the box but the recorded one goes, the intent is cleared. */
  private async rollBack(boxId: string): Promise<void> {
    const row = this.deps.store.getById(boxId)!;
    const pending = JSON.parse(row.pending_root!) as PendingRoot;
    for (const c of await this.containersOf(boxId))
      if (c.id !== row.container_id) await this.deps.engine.removeContainer(c.id);
    // A recreate stopped the box to commit its root: it runs again as it did.
    if (pending.kind === 'recreate' && pending.run && row.container_id)
      await this.deps.engine.startContainer(row.container_id).catch(() => undefined);
    if (pending.kind === 'recreate' && pending.ownsImage)
      await this.deps.engine.removeImage(pending.image).catch(() => undefined);
    await this.deps.workspaces.remove(pending.workspace?.item ?? null);
    this.deps.store.update(boxId, { pending_root: null }, now());
  }

  private containersOf(boxId: string) {
    return this.deps.engine.listContainers({ [LABELS.id]: boxId, [LABELS.instance]: this.deps.instanceId });
  }

  /** Settles every recorded replacement (after a crash). Each box under its own mutex. */
  async finishPending(): Promise<void> {
    for (const row of this.deps.store.all()) {
      if (!row.pending_root) continue;
      await this.deps.boxes.mutex.run(row.id, async () => {
        const current = this.deps.store.getById(row.id);
        if (!current?.pending_root) return;
        await this.settle(current);
      });
    }
  }

  private async settle(current: BoxRow): Promise<void> {
    const pending = JSON.parse(current.pending_root!) as PendingRoot;
    const where = { box: current.name, project: current.project };
    const swapped = pending.old !== undefined && current.container_id !== null && current.container_id !== pending.old;
    if (!swapped && pending.kind === 'restore') {
      await this.rollBack(current.id);
      this.deps.log.warn(where, 'rolled back a restore cut short before its swap: the box is as it was');
      return;
    }
    let done: BoxRow;
    if (swapped) {
      this.deps.log.warn(where, 'finishing a root replacement cut short after its swap');
      done = await this.swap(current.id, current.container_id!);
    } else {
      // A recreate of the box's own root (committed before the intent), or a row from before `old` was kept: redone.
      if (!(await this.deps.engine.inspectImage(pending.image))) {
        await this.rollBack(current.id);
        this.deps.log.error({ ...where, image: pending.image }, 'dropped a root replacement whose image is gone');
        return;
      }
      this.deps.log.warn(where, 'redoing a root replacement cut short by a crash');
      for (const c of await this.containersOf(current.id)) await this.deps.engine.removeContainer(c.id);
      const bare = this.deps.store.update(current.id, { container_id: null }, now());
      done = await this.swap(current.id, await this.createBeside(bare, pending.image));
    }
    // A swap that failed earlier left the box in error; finished, it is what it was before.
    if (done.status === 'error') {
      const next = this.deps.store.update(
        done.id,
        { status: pending.run ? 'running' : 'stopped', status_reason: null },
        now(),
      );
      this.deps.bus.emit('box.status', { box: toBox(next) }, next.project);
    }
  }

  /**
   * Idempotent. Records the new container (the swap), then the old ones go
   * while it starts. The intent is cleared last, so a crash at any point after
   * the record is finished by finishPending.
   */
  private async swap(boxId: string, containerId: string): Promise<BoxRow> {
    const { engine, store } = this.deps;
    let row = store.getById(boxId)!;
    const target = JSON.parse(row.pending_root!) as PendingRoot;
    const previous = { image: row.image, owned: row.owns_image === 1 };
    const workspace = target.workspace
      ? { workspace_item: target.workspace.item, workspace_volume: target.workspace.volume }
      : {};
    if (row.container_id !== containerId)
      row = store.update(
        row.id,
        {
          container_id: containerId,
          image: target.image,
          owns_image: target.ownsImage ? 1 : 0,
          origin: target.origin,
          ...workspace,
        },
        now(),
      );
    const removeOld = async () => {
      for (const c of await this.containersOf(row.id)) if (c.id !== containerId) await engine.removeContainer(c.id);
      // The workspace it replaced goes once no container names it.
      if (target.workspace && target.oldWorkspace !== target.workspace.item)
        await this.deps.workspaces.remove(target.oldWorkspace ?? null);
      // The old root image goes when the box owned it (the engine keeps it while something else builds on it).
      if (previous.owned && previous.image !== target.image)
        await engine.removeImage(previous.image).catch(() => undefined);
    };
    await Promise.all([removeOld(), target.run ? engine.startContainer(containerId) : Promise.resolve()]);
    row = store.update(row.id, { pending_root: null }, now());
    this.deps.bus.emit('box.updated', { box: toBox(row) }, row.project);
    return row;
  }
}
