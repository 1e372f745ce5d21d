import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { Box } from '../../../shared/schemas/box';
import { SNAPSHOT_ID_PATTERN, type Snapshot, type SnapshotCreate } from '../../../shared/schemas/snapshots';
import type { BasesPort } from '../bases/port';
import { IMAGE_LABELS, toBox, together, type BoxesPort, type ForkSnapshots } from '../boxes/port';
import type { ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import { ProjectScopedError } from '../http/project-scoped-error';
import { newId, now, randomBase32 } from '../ids';
import { nameList } from '../name-list';
import { toSnapshot, type SnapshotRow, type SnapshotStore } from './store';

/** Snapshot ids: snap_ and 20 base32 characters. */
export const SNAPSHOT_ID_PREFIX = 'snap';
const SNAPSHOT_ID = new RegExp(SNAPSHOT_ID_PATTERN);

export interface SnapshotServiceDeps {
  store: SnapshotStore;
  boxes: Pick<
    BoxesPort,
    'find' | 'byId' | 'withLock' | 'replaceRoot' | 'roots' | 'withOrigin' | 'workspaces' | 'freeze' | 'recordSizes'
  >;
  bases: Pick<BasesPort, 'madeFrom'>;
  engine: ContainerEngine;
  bus: EventBus;
  instanceId: string;
  log: FastifyBaseLogger;
}

/** A readable default name: snap-20261122-081502-x7k2. */
function defaultName(): string {
  const t = now().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `snap-${t}-${randomBase32(4)}`;
}

/**
 * Snapshots: a box's root committed as an engine image and its /workspace snapshotted on the
 * copy-on-write store, at one instant (the box is paused for both, taken side by side), running
 * or stopped. The intent, naming the workspace item it will make, is written first and the image
 * carries the snapshot's id, so a crash leaves a snapshot complete or absent (see recoverAtStart:
 * complete only with both its image and its item).
 */
export class SnapshotService {
  constructor(private readonly deps: SnapshotServiceDeps) {}

  private get store(): SnapshotStore {
    return this.deps.store;
  }

  /** A ready snapshot of the project, or 404. */
  find(project: string, id: string): SnapshotRow {
    const row = this.store.getById(id);
    if (!row || row.project !== project || row.status !== 'ready')
      throw new ApiError('not_found', `snapshot "${id}" not found in project "${project}"`);
    return row;
  }

  get(project: string, id: string): Snapshot {
    return toSnapshot(this.find(project, id));
  }

  listOfBox(project: string, boxName: string): Snapshot[] {
    const box = this.deps.boxes.find(project, boxName);
    return this.store.listOfBox(project, box.id).map(toSnapshot);
  }

  /** A ready snapshot by id, of any project (a base made from it names it so). */
  ready(id: string): SnapshotRow | undefined {
    const row = this.store.getById(id);
    return row?.status === 'ready' ? row : undefined;
  }

  /** Snapshots taken of roots that descend from `parent` (a snapshot id or a base name). */
  childrenOf(parent: string): SnapshotRow[] {
    return this.store.children(parent);
  }

  /** What a fork from a snapshot needs (boxes asks it: BoxesPort.useForkSnapshots). */
  forkSnapshots(): ForkSnapshots {
    return {
      names: (ref) => SNAPSHOT_ID.test(ref),
      find: (project, id) => {
        const row = this.store.getById(id);
        if (!row || row.project !== project || row.status !== 'ready') return undefined;
        return {
          id: row.id,
          image: row.image!,
          item: row.item_id ?? (row.workspace_empty ? 'empty' : null),
          base: row.base,
          config: row.config,
          environment: row.environment,
        };
      },
    };
  }

  listOfProject(project: string): Snapshot[] {
    return this.store.listOfProject(project).map(toSnapshot);
  }

  async create(project: string, boxName: string, input: SnapshotCreate): Promise<Snapshot> {
    const { boxes } = this.deps;
    const snapshot = await boxes.withLock(boxes.find(project, boxName).id, async () => {
      const box = boxes.find(project, boxName);
      if (!box.container_id || !['running', 'stopped'].includes(box.status)) {
        throw new ApiError(
          'conflict',
          `cannot snapshot box "${boxName}" while it is ${box.status}${box.status === 'error' ? '' : '; wait until it settles'}`,
        );
      }
      const name = input.name ?? defaultName();
      const row: SnapshotRow = {
        id: newId(SNAPSHOT_ID_PREFIX),
        project,
        box_id: box.id,
        box: box.name,
        name,
        status: 'pending',
        image: null,
        size_bytes: null,
        parent_id: box.origin ?? box.base,
        base: box.base,
        config: box.config,
        environment: box.environment,
        created_at: now(),
        item_id: box.workspace_item ? boxes.workspaces.newItemId() : null,
        workspace_empty: 0,
        exclusive_bytes: null,
      };
      // The intent, on disk before the store or the engine is asked.
      if (!this.store.insert(row))
        throw new ApiError('already_exists', `box "${boxName}" already has a snapshot named "${name}"`);
      try {
        // The workspace and the root side by side, the box frozen for both.
        const [, image] = await boxes.freeze(box, () =>
          together(
            async () => {
              // On a copy store an empty workspace is recorded as such, not copied (no helper container for it).
              if (row.item_id && boxes.workspaces.copies && (await boxes.workspaces.emptyIn(box.container_id!))) {
                this.store.update(row.id, { item_id: null, workspace_empty: 1 });
                row.item_id = null;
              }
              if (row.item_id) await boxes.workspaces.snapshot(box.workspace_item!, row.id, row.item_id);
            },
            () => boxes.roots.commit(box.container_id!, box.image, 'snapshot', row.id),
            async (made) => {
              if (made.root) await this.deps.engine.removeImage(made.root.id);
            },
          ),
        );
        const sizes = await this.measure(box.id, box.workspace_item, row.item_id);
        return this.store.markReady(
          row.id,
          image.id,
          image.ownBytes + (sizes?.size_bytes ?? 0),
          sizes?.exclusive_bytes == null ? null : image.ownBytes + sizes.exclusive_bytes,
        );
      } catch (err) {
        await boxes.workspaces.remove(row.item_id).catch(() => undefined);
        this.store.delete(row.id);
        throw err;
      }
    });
    const out = toSnapshot(snapshot);
    this.deps.bus.emit('snapshot.created', { snapshot: out }, project);
    return out;
  }

  /**
   * The box's workspace and the snapshot's, where the store tells sizes cheaply (btrfs): the box's
   * recorded, the snapshot's answered. A failure to measure is no failure of the snapshot.
   */
  private async measure(
    boxId: string,
    boxItem: string | null,
    item: string | null,
  ): Promise<{ size_bytes: number; exclusive_bytes: number | null } | null> {
    const { workspaces } = this.deps.boxes;
    if (!item || !workspaces.measures) return null;
    try {
      const sizes = await workspaces.measure([boxItem, item]);
      const own = boxItem ? sizes.get(boxItem) : undefined;
      if (own) this.deps.boxes.recordSizes(boxId, own);
      return sizes.get(item) ?? null;
    } catch (err) {
      this.deps.log.warn({ err, snapshot: item }, 'could not measure a snapshot');
      return null;
    }
  }

  /** 409 while anything descends from the snapshot, naming it. */
  async delete(project: string, id: string): Promise<void> {
    const row = this.find(project, id);
    const boxes = this.deps.boxes.withOrigin(id);
    const children = this.store.children(id);
    const bases = this.deps.bases.madeFrom(id);
    if (boxes.length + children.length + bases.length) {
      // Boxes and snapshots of other projects are named only to a token that may see them.
      throw new ProjectScopedError('conflict', (sees) => {
        const hidden = boxes.filter((b) => !sees(b.project)).length + children.filter((s) => !sees(s.project)).length;
        const users = [
          ...boxes
            .filter((b) => sees(b.project))
            .map((b) => `box "${b.name}"${b.project === project ? '' : ` (project ${b.project})`}`),
          ...children.filter((s) => sees(s.project)).map((s) => `snapshot "${s.name}" (${s.id})`),
          ...bases.map((b) => `base "${b}"`),
          ...(hidden === 1 ? ['a box or snapshot in another project'] : []),
          ...(hidden > 1 ? [`${hidden} boxes or snapshots in other projects`] : []),
        ];
        return `snapshot "${row.name}" (${id}) is still needed by ${nameList(users)}; delete those (or restore the boxes to another snapshot) first`;
      });
    }
    this.store.delete(id);
    await this.deps.engine.removeImage(row.image!);
    // A crash before this leaves an item no snapshot names: it goes at the next start.
    await this.deps.boxes.workspaces.remove(row.item_id);
    this.deps.bus.emit('snapshot.deleted', { snapshot: toSnapshot(row) }, project);
  }

  /**
   * Replaces the box's root by the snapshot's (boxes/recreate.ts). Any snapshot of the project will
   * do. A refused or failed restore leaves the box as it was (recreate rolls back before its swap).
   */
  async restore(project: string, boxName: string, snapshotId: string): Promise<Box> {
    const { boxes } = this.deps;
    return boxes.withLock(boxes.find(project, boxName).id, async () => {
      const box = boxes.find(project, boxName);
      const snapshot = this.find(project, snapshotId);
      // Checked before anything changes: a snapshot whose image was removed outside Boxdesk restores nothing.
      if (!(await this.deps.engine.inspectImage(snapshot.image!)))
        throw new ApiError(
          'conflict',
          `the image of snapshot "${snapshot.name}" (${snapshot.id}) is missing from the engine (removed outside Boxdesk); box "${boxName}" was not changed. Delete this snapshot`,
        );
      if (snapshot.item_id && !boxes.workspaces.exists(snapshot.item_id))
        throw new ApiError(
          'conflict',
          `the /workspace of snapshot "${snapshot.name}" (${snapshot.id}) is missing from the copy-on-write store; box "${boxName}" was not changed. Delete this snapshot`,
        );
      // A new workspace cloned from the snapshot's (a snapshot taken before the store restores the root only).
      const next = await boxes.replaceRoot(box, {
        image: snapshot.image!,
        ownsImage: false,
        origin: snapshot.id,
        workspaceFrom: snapshot.item_id ?? (snapshot.workspace_empty ? 'empty' : null),
      });
      return toBox(next);
    });
  }

  /**
   * At start, before the API answers (and after the store reconciled its items): a snapshot whose
   * commit was under way when the core died is finished when its image and its workspace item are
   * both there, else forgotten with whichever is; store items of snapshots no record names go.
   */
  async recoverAtStart(): Promise<void> {
    const { engine, instanceId, log } = this.deps;
    const { workspaces } = this.deps.boxes;
    const withStore = await workspaces.available();
    for (const row of this.store.all()) {
      if (row.status !== 'pending') continue;
      if (row.item_id && !withStore) {
        log.error({ snapshot: row.id }, 'an interrupted snapshot waits for the copy-on-write store to work again');
        continue;
      }
      await this.commitSettled(row.box_id);
      const [image] = await engine.listImages({
        'boxdesk.instance': instanceId,
        [IMAGE_LABELS.role]: 'snapshot',
        [IMAGE_LABELS.owner]: row.id,
      });
      const details = image ? await engine.inspectImage(image.id) : null;
      if (details && (!row.item_id || workspaces.exists(row.item_id))) {
        const below = details.parentId ? await engine.inspectImage(details.parentId) : null;
        this.store.markReady(
          row.id,
          details.id,
          below ? Math.max(0, details.sizeBytes - below.sizeBytes) : details.sizeBytes,
        );
        log.warn({ snapshot: row.id }, 'finished a snapshot interrupted by a crash');
      } else {
        if (details) await engine.removeImage(details.id).catch(() => undefined);
        await workspaces.remove(row.item_id);
        this.store.delete(row.id);
        log.warn({ snapshot: row.id }, 'dropped a snapshot whose commit never completed');
      }
    }
    if (withStore) {
      const named = new Set(this.store.all().map((row) => row.item_id));
      for (const item of workspaces.owned('box-snapshot:')) {
        if (named.has(item.id)) continue;
        log.warn({ item: item.id, snapshot: item.record }, 'removing a store item of a snapshot that no record names');
        await workspaces.remove(item.id);
      }
    }
    await this.deps.boxes.roots.removeHelpers();
  }

  /** A commit pauses the box; the engine may still be finishing one that the dead core asked for. */
  private async commitSettled(boxId: string): Promise<void> {
    const containerId = this.deps.boxes.byId(boxId)?.container_id;
    if (!containerId) return;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await this.deps.engine.inspectContainer(containerId))?.state === 'paused')
      await new Promise((r) => setTimeout(r, 200));
  }

  /** Image ids that snapshots hold, for the start-time collection of images nobody owns. */
  imagesInUse(): Set<string> {
    return new Set(this.store.all().flatMap((row) => (row.image ? [row.image] : [])));
  }
}
