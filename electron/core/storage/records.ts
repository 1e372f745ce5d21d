import type { Db } from '../db/database';
import { Table } from '../db/table';
import type { StorageDriverName } from './storage-driver';

/**
 * One row per store item (migration 9). `status` is the intent: `creating` (create,
 * snapshot or clone asked, not confirmed), `ready`, `restoring` (its content being replaced
 * from `pending`), `deleting`. Written before the driver is asked.
 */
export interface ItemRow {
  id: string;
  /** volume: writable (workspaces, data volumes, clones) | snapshot: read-only, immutable. */
  kind: 'volume' | 'snapshot';
  /** Who holds it, e.g. `box:box_…`, `snapshot:snap_…`, `volume:vol_…`: the owner's records reconcile against it. */
  owner: string;
  /** The item it was snapshotted or cloned from. */
  parent_id: string | null;
  driver: StorageDriverName;
  quota_bytes: number | null;
  status: 'creating' | 'ready' | 'restoring' | 'deleting';
  /** JSON `{snapshot_id, scratch_id}` while restoring. */
  pending: string | null;
  created_at: string;
  /** JSON: the owner's labels, put on the item's engine volume beside the store's own (migration 2). */
  labels: string | null;
}

export interface PendingRestore {
  snapshot_id: string;
  scratch_id: string;
}

/** The store's items (storage_items). */
export class ItemRecords extends Table<ItemRow> {
  constructor(db: Db) {
    super(db, 'storage_items');
  }

  /** Oldest first. */
  override all(): ItemRow[] {
    return this.select('ORDER BY created_at, id');
  }

  byOwner(owner: string): ItemRow[] {
    return this.select('WHERE owner = ? ORDER BY created_at, id', owner);
  }

  /** Items whose parent is `id` (a snapshot cloned or a workspace snapshotted). */
  children(id: string): ItemRow[] {
    return this.select('WHERE parent_id = ?', id);
  }

  setStatus(id: string, status: ItemRow['status'], pending: PendingRestore | null = null): void {
    this.update(id, { status, pending: pending ? JSON.stringify(pending) : null });
  }

  setQuota(id: string, quotaBytes: number | null): void {
    this.update(id, { quota_bytes: quotaBytes });
  }

  setOwner(id: string, owner: string): void {
    this.update(id, { owner });
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM storage_items').get() as { n: number }).n;
  }
}
