/**
 * The copy-on-write store's driver interface: the second driver interface beside the
 * engine's (STYLE.md, "Storage and privilege behind narrow doors"). One store per engine
 * host holds box workspaces, snapshots and data volumes as items named by id; a driver
 * knows how its backend makes, copies and removes them, and what a container binds to
 * see one. Records, intents and crash recovery are not the driver's: `Storage` (storage.ts)
 * wraps every call. Every driver passes the same contract tests
 * (storage-contract.integration.test.ts).
 */

/** Best first: btrfs on the host's own filesystem, a loop-backed btrfs image, reflink copies, plain copies. */
export const STORAGE_DRIVERS = ['btrfs', 'loop-btrfs', 'reflink', 'copy'] as const;
export type StorageDriverName = (typeof STORAGE_DRIVERS)[number];

export interface StorageCapabilities {
  /** Snapshots and clones share blocks with their source: no bytes copied, no disk used until they diverge. */
  copyOnWrite: boolean;
  /** setQuota is enforced: a write past it fails inside the container (and nowhere else). */
  quota: boolean;
  /** restore swaps the item in one step: cut short or failed, the item is wholly old or wholly restored. */
  oneStepRestore: boolean;
}

export interface ItemUsage {
  /** What the item refers to. */
  sizeBytes: number;
  /** What deleting it would free (blocks no other item shares). */
  exclusiveBytes: number;
}

export interface StoreSpace {
  /** Where the store lives on the engine's host. */
  path: string;
  sizeBytes: number | null;
  usedBytes: number | null;
}

/** What a container spec names to see an item: an engine volume (ContainerSpec.mounts, plus a path). */
export interface ItemMount {
  volume: string;
  readOnly: boolean;
}

export interface StorageDriver {
  readonly name: StorageDriverName;
  readonly capabilities: StorageCapabilities;
  /** Makes the backend ready (helper running, image attached); throws StorageError('unavailable') saying why not. */
  start(): Promise<void>;
  /** Lets go of what start() holds (items and their engine volumes stay). */
  stop(): Promise<void>;

  /**
   * An empty, writable item. `labels` (here and below) are its owner's, for the engine volume
   * that shows it, whenever the driver makes that volume (itemVolumeLabels keeps the store's own).
   */
  create(id: string, quotaBytes: number | null, labels?: Record<string, string>): Promise<void>;
  /** A read-only, immutable point-in-time copy of `sourceId` (live or a snapshot). */
  snapshot(sourceId: string, id: string, labels?: Record<string, string>): Promise<void>;
  /** A writable copy of `sourceId` (live or a snapshot); both sides then diverge freely. */
  clone(sourceId: string, id: string, quotaBytes: number | null, labels?: Record<string, string>): Promise<void>;
  /**
   * Makes the writable item `id` a copy of the snapshot `snapshotId`, keeping its id and
   * engine volume (so containers that name it need no change). `scratchId` is an id the
   * driver may use on the way and leaves absent. Redoing it after a crash is safe.
   */
  restore(id: string, snapshotId: string, scratchId: string): Promise<void>;
  /** Removes an item and its engine volume; an id that does not exist is not an error. */
  delete(id: string): Promise<void>;

  usage(ids: string[]): Promise<Map<string, ItemUsage>>;
  /** null lifts the quota. */
  setQuota(id: string, quotaBytes: number | null): Promise<void>;
  /** The engine volume that shows the item (made on first use; a snapshot's is read-only). */
  mountFor(id: string, readOnly: boolean, labels?: Record<string, string>): Promise<ItemMount>;
  /** The ids the backend holds (reconciliation compares them with the records). */
  list(): Promise<string[]>;
  space(): Promise<StoreSpace>;
  /** Waits until freed space shows (btrfs frees a deleted subvolume's blocks in the background). */
  settle?(): Promise<void>;
}

export type StorageErrorKind = 'unavailable' | 'not_found' | 'busy' | 'no_space' | 'invalid' | 'failed';

/** A store failure with a kind the API maps to a problem (see Storage.toApiError). */
export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/** Item ids: the helper's own rule (agent/internal/store), checked on both sides. */
export const ITEM_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export function checkItemId(id: string): string {
  if (!ITEM_ID.test(id)) throw new StorageError('invalid', `"${id}" is not a store item id (${ITEM_ID.source})`);
  return id;
}
