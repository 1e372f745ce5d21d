import { holdsEntries } from '../archives/holds-entries';
import type { ContainerEngine } from '../engine/container-engine';
import { GiB, newItemId, storeCall, type ItemSizes, type StoragePort } from '../storage/port';
import type { Workspace } from './box-row';

/** Who holds a store item: a box (its /workspace) or a box snapshot (the workspace at that instant). */
export const boxOwner = (id: string): string => `box:${id}`;
export const boxSnapshotOwner = (id: string): string => `box-snapshot:${id}`;

/** Where /workspace is in every box that has one. */
export const WORKSPACE_PATH = '/workspace';

export type WorkspaceSizes = ItemSizes;

/**
 * The boxes' side of the copy-on-write store (StoragePort only): a box made while the store works
 * has its /workspace as an item (owner `box:<id>`), capped at config.storage_gb where the store
 * enforces quotas; a box snapshot's workspace is a `snapshot` of it (owner `box-snapshot:<id>`);
 * forks and restores start from `clone`s. Ids are chosen before the store is asked, so a record can
 * name an item first and start-up recovery can tell an item nobody names (`owned`).
 */
export class BoxWorkspaces {
  /** Boxes and snapshots whose items are being made in this process (recovery leaves them alone). */
  readonly inFlight = new Set<string>();

  /** `null`: no store at all (boxes on their own, in tests): no box gets a workspace item. */
  constructor(
    private readonly port: StoragePort | null,
    private readonly engine: ContainerEngine | null = null,
  ) {}

  private get storage(): StoragePort {
    if (!this.port) throw new Error('no copy-on-write store: no box has a workspace item');
    return this.port;
  }

  /** Whether the store works (waits for a start in flight): without it, new boxes have no store workspace. */
  async available(): Promise<boolean> {
    return this.port ? this.port.available() : false;
  }

  /** The quota for `storageGb` where the store enforces quotas (btrfs qgroups); else none. */
  quotaFor(storageGb: number): number | null {
    return this.port?.enforcesQuota ? storageGb * GiB : null;
  }

  /**
   * Whether a copy of a workspace is a whole copy by a helper container (the `copy` store): then an
   * empty one is worth telling (`emptyIn`), so that forks and snapshots of boxes that never wrote
   * to /workspace make an empty item instead of running a helper.
   */
  get copies(): boolean {
    return this.port?.capabilities?.copyOnWrite === false;
  }

  /** Whether /workspace in the container holds nothing (one engine archive call, two headers read at most). */
  async emptyIn(containerId: string): Promise<boolean> {
    if (!this.engine) return false;
    try {
      return !(await holdsEntries(await this.engine.getArchive(containerId, WORKSPACE_PATH)));
    } catch {
      return false;
    }
  }

  /** A new box's empty workspace, or a clone of `from` (a box's live workspace or a snapshot's; 'empty': none to copy). */
  make(boxId: string, quotaBytes: number | null, from: string | 'empty' | null = null): Promise<Workspace> {
    const id = newItemId();
    return storeCall(async () => {
      const place = { id, owner: boxOwner(boxId), quotaBytes };
      await (from && from !== 'empty' ? this.storage.clone(from, place) : this.storage.create(place));
      return { item: id, volume: (await this.storage.mountFor(id)).volume };
    });
  }

  /** An id for an item, chosen before it is made (so a record can name it first). */
  newItemId(): string {
    return newItemId();
  }

  /** A read-only snapshot `id` of a box's workspace, for the box snapshot `snapshotId`. */
  snapshot(item: string, snapshotId: string, id: string): Promise<void> {
    return storeCall(async () => {
      await this.storage.snapshot(item, { id, owner: boxSnapshotOwner(snapshotId) });
    });
  }

  /**
   * Whether sizes are worth asking at each snapshot: on btrfs stores `usage` is one quick call in the
   * store's helper and tells what blocks are shared; on copy stores it is a helper container per call
   * and every copy is whole anyway.
   */
  get measures(): boolean {
    return this.port?.capabilities?.copyOnWrite === true && this.port.enforcesQuota;
  }

  /** The item goes; one already gone is not an error. */
  remove(item: string | null): Promise<void> {
    return item ? storeCall(() => this.storage.delete(item)) : Promise.resolve();
  }

  /** Whether the item is there and ready. */
  exists(item: string): boolean {
    return this.port?.get(item)?.status === 'ready';
  }

  /** The engine volume that shows the item, made again where its view changed (a loop device after a reboot). */
  mountName(item: string): Promise<string> {
    return storeCall(async () => (await this.storage.mountFor(item)).volume);
  }

  async setQuota(item: string, quotaBytes: number | null): Promise<void> {
    await storeCall(() => this.storage.setQuota(item, quotaBytes));
  }

  /** Sizes of ready items from the store's usage; items the store no longer has are left out. */
  async measure(items: (string | null)[]): Promise<Map<string, WorkspaceSizes>> {
    const ids = items.filter((i): i is string => i !== null && this.exists(i));
    const out = new Map<string, WorkspaceSizes>();
    if (ids.length === 0) return out;
    for (const [id, u] of await storeCall(() => this.storage.usage(ids)))
      out.set(id, { size_bytes: u.sizeBytes, exclusive_bytes: u.exclusiveBytes });
    return out;
  }

  /** Items whose owner starts with `prefix` (`box:` or `box-snapshot:`), with the record id each names. */
  owned(prefix: 'box:' | 'box-snapshot:'): { id: string; record: string }[] {
    return (this.port?.list() ?? [])
      .filter((row) => row.owner.startsWith(prefix))
      .map((row) => ({ id: row.id, record: row.owner.slice(prefix.length) }));
  }
}
