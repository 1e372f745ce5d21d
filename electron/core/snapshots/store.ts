import type { Snapshot } from '../../../shared/schemas/snapshots';
import type { Db } from '../db/database';
import { Table } from '../db/table';

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
  /** The box's /workspace at that instant: a read-only store item (null: taken before the store, or of a box without one). */
  item_id: string | null;
  /** 1: the box's /workspace was empty (on a copy store, where no item is then kept): forks and restores start empty. */
  workspace_empty: number;
  /** What deleting it would free (its root's own bytes and the workspace blocks nothing else shares); null: not measured. */
  exclusive_bytes: number | null;
}

export function toSnapshot(row: SnapshotRow): Snapshot {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    box: row.box,
    box_id: row.box_id,
    created_at: row.created_at,
    size_bytes: row.size_bytes ?? 0,
    exclusive_bytes: row.exclusive_bytes,
    parent_id: row.parent_id,
  };
}

export class SnapshotStore extends Table<SnapshotRow> {
  constructor(db: Db) {
    super(db, 'snapshots');
  }

  /** false when the box already has a snapshot of that name */
  insert(row: SnapshotRow): boolean {
    return this.insertUnlessTaken(row);
  }

  /** Ready snapshots of one box, oldest first. */
  listOfBox(project: string, boxId: string): SnapshotRow[] {
    return this.select("WHERE project = ? AND box_id = ? AND status = 'ready' ORDER BY created_at, id", project, boxId);
  }

  /** Ready snapshots of a project, oldest first (including those of deleted boxes). */
  listOfProject(project: string): SnapshotRow[] {
    return this.select("WHERE project = ? AND status = 'ready' ORDER BY created_at, id", project);
  }

  /** Snapshots taken of roots that descend from `parent` (a snapshot id or a base name). */
  children(parent: string): SnapshotRow[] {
    return this.select('WHERE parent_id = ? ORDER BY created_at', parent);
  }

  markReady(id: string, image: string, sizeBytes: number, exclusiveBytes: number | null = null): SnapshotRow {
    return this.update(id, { status: 'ready', image, size_bytes: sizeBytes, exclusive_bytes: exclusiveBytes });
  }
}
