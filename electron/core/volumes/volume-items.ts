import type { ContainerEngine } from '../engine/container-engine';
import { GiB, newItemId, storeCall, type ItemSizes, type StoragePort } from '../storage/port';

/** Who holds a store item: the volume or the volume snapshot it is the data of. */
export const volumeOwner = (id: string): string => `volume:${id}`;
export const snapshotOwner = (id: string): string => `volume-snapshot:${id}`;
/** The record id in an owner of this module (`volume:vol_…`, `volume-snapshot:vsnap_…`), or null. */
export function ownedRecord(owner: string): string | null {
  return /^volume(?:-snapshot)?:(.+)$/.exec(owner)?.[1] ?? null;
}

/** Where a volume or a snapshot keeps its data: a store item, or (made before the store) a plain engine volume. */
export interface DataHolder {
  item_id: string | null;
  engine_name: string;
}

export type Measured = ItemSizes;

/**
 * The volumes' side of the copy-on-write store (StoragePort only): a volume made while the store
 * works is an item, its snapshots `snapshot`s, its clones `clone`s, and its engine volume the one
 * `mountFor` names. Records made before the store (no item id) keep their engine volumes.
 */
export class VolumeItems {
  constructor(
    private readonly storage: StoragePort,
    private readonly engine: ContainerEngine,
  ) {}

  /** An id for a new volume's item, or null when no store driver works (the volume is then a plain engine volume). */
  async newId(): Promise<string | null> {
    return (await this.storage.available()) ? newItemId() : null;
  }

  /** Whether the store works, once a start in flight is done. */
  available(): Promise<boolean> {
    return this.storage.available();
  }

  /** An id for an item made from another (a snapshot or a clone of a store volume): the store already works. */
  newItemId(): string {
    return newItemId();
  }

  /** How a store snapshot is made: sharing blocks (btrfs, reflink) or by a full copy. */
  get method(): 'reflink' | 'copy' {
    return this.storage.capabilities?.copyOnWrite ? 'reflink' : 'copy';
  }

  /** Whether `restore` swaps an item in one step (btrfs): else a restore fills a new item beside and swaps records. */
  get oneStepRestore(): boolean {
    return this.storage.capabilities?.oneStepRestore ?? false;
  }

  /**
   * The quota for a volume's item of `sizeGb` GiB where the store enforces quotas (btrfs qgroups: a
   * write past it fails inside the box); else none, since a quota nothing enforces would only be a claim.
   */
  private quotaFor(sizeGb: number | null): number | null {
    return sizeGb && this.storage.enforcesQuota ? sizeGb * GiB : null;
  }

  /** Whether the volume's size is enforced: its item carries a quota and the store enforces quotas. */
  sizeEnforced(holder: DataHolder): boolean {
    const item = holder.item_id ? this.storage.get(holder.item_id) : undefined;
    return Boolean(item?.quota_bytes) && this.storage.enforcesQuota;
  }

  /** An empty item, capped at `sizeGb` where the store can; answers its engine volume. */
  create(id: string, owner: string, labels: Record<string, string>, sizeGb: number | null): Promise<string> {
    return storeCall(async () => {
      await this.storage.create({ id, owner, labels, quotaBytes: this.quotaFor(sizeGb) });
      return (await this.storage.mountFor(id)).volume;
    });
  }

  /** A read-only snapshot of `source`; answers its engine volume. */
  snapshot(source: string, id: string, owner: string, labels: Record<string, string>): Promise<string> {
    return storeCall(async () => {
      await this.storage.snapshot(source, { id, owner, labels });
      return (await this.storage.mountFor(id)).volume;
    });
  }

  /** A writable copy of a volume's or a snapshot's item, capped as `create`; answers its engine volume. */
  clone(
    source: string,
    id: string,
    owner: string,
    labels: Record<string, string>,
    sizeGb: number | null,
  ): Promise<string> {
    return storeCall(async () => {
      await this.storage.clone(source, { id, owner, labels, quotaBytes: this.quotaFor(sizeGb) });
      return (await this.storage.mountFor(id)).volume;
    });
  }

  /** The item becomes the snapshot's copy in one step (the store records the intent and finishes it after a crash). */
  restore(id: string, snapshotId: string): Promise<void> {
    return storeCall(() => this.storage.restore(id, snapshotId));
  }

  /** The engine volume to mount: the item's (made again if its view changed), else the recorded one. */
  mountName(holder: DataHolder): Promise<string> {
    const item = holder.item_id;
    return item
      ? storeCall(async () => (await this.storage.mountFor(item)).volume)
      : Promise.resolve(holder.engine_name);
  }

  /** Whether the item is there and ready (a plain engine volume: whether the engine has it). */
  async exists(holder: DataHolder): Promise<boolean> {
    if (holder.item_id) return this.storage.get(holder.item_id)?.status === 'ready';
    return (await this.engine.inspectVolume(holder.engine_name)) !== null;
  }

  /** Its item, or its plain engine volume, goes; one already gone is not an error. */
  async remove(holder: DataHolder): Promise<void> {
    const item = holder.item_id;
    if (item) await storeCall(() => this.storage.delete(item));
    else if (holder.engine_name) await this.engine.removeVolume(holder.engine_name);
  }

  /** Sizes of items from the store's usage (referred to, and freed by deleting). */
  async measure(ids: string[]): Promise<Map<string, Measured>> {
    const usage = await storeCall(() => this.storage.usage(ids));
    const out = new Map<string, Measured>();
    for (const [id, u] of usage) out.set(id, { size_bytes: u.sizeBytes, exclusive_bytes: u.exclusiveBytes });
    return out;
  }

  /** The items this module owns, by id, with the record id each names. */
  owned(): { id: string; record: string }[] {
    return this.storage
      .list()
      .flatMap((row) => (ownedRecord(row.owner) ? [{ id: row.id, record: ownedRecord(row.owner)! }] : []));
  }
}
