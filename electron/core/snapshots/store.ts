import type { Snapshot } from '../../../shared/schemas/snapshots';
import type { Db } from '../db/database';

export interface SnapshotRow {
  id: string;
  project: string;
  /** The box it was taken of (which may since have been deleted). */
  box_id: string;
  box: string;
  name: string;
  /** `pending` from before the commit until the image is confirmed; only `ready` snapshots are shown. */
  status: 'pending' | 'ready';
  image: string | null;
  size_bytes: number | null;
  /** The snapshot (snap_…) or base (a name) the root descends from. */
  parent_id: string | null;
  base: string | null;
  /** The box's config and environment when it was taken: a fork from the snapshot starts with them. */
  config: string;
  environment: string;
  created_at: string;
}

export function toSnapshot(row: SnapshotRow): Snapshot {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    box: row.box,
    created_at: row.created_at,
    size_bytes: row.size_bytes ?? 0,
    parent_id: row.parent_id,
  };
}

export class SnapshotStore {
  constructor(private readonly db: Db) {}

  /** false when the box already has a snapshot of that name */
  insert(row: SnapshotRow): boolean {
    const cols = Object.keys(row);
    return (
      this.db
        .prepare(
          `INSERT INTO snapshots (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')}) ON CONFLICT DO NOTHING`,
        )
        .run(row).changes > 0
    );
  }

  get(id: string): SnapshotRow | undefined {
    return this.db.prepare('SELECT * FROM snapshots WHERE id = ?').get(id) as SnapshotRow | undefined;
  }

  /** Ready snapshots of one box, oldest first. */
  listOfBox(project: string, boxId: string): SnapshotRow[] {
    return this.db
      .prepare("SELECT * FROM snapshots WHERE project = ? AND box_id = ? AND status = 'ready' ORDER BY created_at, id")
      .all(project, boxId) as SnapshotRow[];
  }

  /** Ready snapshots of a project, oldest first (including those of deleted boxes). */
  listOfProject(project: string): SnapshotRow[] {
    return this.db
      .prepare("SELECT * FROM snapshots WHERE project = ? AND status = 'ready' ORDER BY created_at, id")
      .all(project) as SnapshotRow[];
  }

  all(): SnapshotRow[] {
    return this.db.prepare('SELECT * FROM snapshots').all() as SnapshotRow[];
  }

  /** Snapshots taken of roots that descend from `parent` (a snapshot id or a base name). */
  children(parent: string): SnapshotRow[] {
    return this.db
      .prepare('SELECT * FROM snapshots WHERE parent_id = ? ORDER BY created_at')
      .all(parent) as SnapshotRow[];
  }

  markReady(id: string, image: string, sizeBytes: number): SnapshotRow {
    this.db
      .prepare("UPDATE snapshots SET status = 'ready', image = ?, size_bytes = ? WHERE id = ?")
      .run(image, sizeBytes, id);
    return this.get(id)!;
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM snapshots WHERE id = ?').run(id);
  }
}
