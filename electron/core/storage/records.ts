import type { Db } from '../db/database';
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

export class ItemRecords {
  constructor(private readonly db: Db) {}

  insert(row: ItemRow): void {
    this.db
      .prepare(
        `INSERT INTO storage_items (id, kind, owner, parent_id, driver, quota_bytes, status, pending, created_at, labels)
         VALUES (@id, @kind, @owner, @parent_id, @driver, @quota_bytes, @status, @pending, @created_at, @labels)`,
      )
      .run(row);
  }

  get(id: string): ItemRow | undefined {
    return this.db.prepare('SELECT * FROM storage_items WHERE id = ?').get(id) as ItemRow | undefined;
  }

  all(): ItemRow[] {
    return this.db.prepare('SELECT * FROM storage_items ORDER BY created_at, id').all() as ItemRow[];
  }

  byOwner(owner: string): ItemRow[] {
    return this.db
      .prepare('SELECT * FROM storage_items WHERE owner = ? ORDER BY created_at, id')
      .all(owner) as ItemRow[];
  }

  /** Items whose parent is `id` (a snapshot cloned or a workspace snapshotted). */
  children(id: string): ItemRow[] {
    return this.db.prepare('SELECT * FROM storage_items WHERE parent_id = ?').all(id) as ItemRow[];
  }

  setStatus(id: string, status: ItemRow['status'], pending: PendingRestore | null = null): void {
    this.db
      .prepare('UPDATE storage_items SET status = ?, pending = ? WHERE id = ?')
      .run(status, pending ? JSON.stringify(pending) : null, id);
  }

  setQuota(id: string, quotaBytes: number | null): void {
    this.db.prepare('UPDATE storage_items SET quota_bytes = ? WHERE id = ?').run(quotaBytes, id);
  }

  setOwner(id: string, owner: string): void {
    this.db.prepare('UPDATE storage_items SET owner = ? WHERE id = ?').run(owner, id);
  }

  remove(id: string): void {
    this.db.prepare('DELETE FROM storage_items WHERE id = ?').run(id);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM storage_items').get() as { n: number }).n;
  }
}
