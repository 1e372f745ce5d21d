import type { Volume, VolumeBackup, VolumeMountInfo, VolumeSnapshot } from '../../../shared/schemas/volumes';
import type { Db } from '../db/database';

export interface VolumeRow {
  id: string;
  project: string;
  name: string;
  engine_name: string;
  /** creating (a clone being filled) | ready | deleting: the intent, undone or finished at start. */
  status: 'creating' | 'ready' | 'deleting';
  size_gb: number | null;
  size_bytes: number;
  measured_at: string | null;
  backup_retention: number;
  /** JSON RestoreIntent (restores.ts): a restore in flight, rolled back or finished at start, never redone. */
  pending_restore: string | null;
  /** JSON of container ids paused for a copy of this volume, thawed at start after a crash. */
  paused: string | null;
  created_at: string;
  /** Its copy-on-write store item (owner `volume:<id>`; engine_name is the item's engine volume); null: a plain engine volume made before the store. */
  item_id: string | null;
  /** What deleting it would free, from the store's usage; null: not measured. */
  exclusive_bytes: number | null;
}

export interface VolumeSnapshotRow {
  id: string;
  project: string;
  volume_id: string;
  engine_name: string;
  status: 'pending' | 'ready';
  size_bytes: number;
  method: 'reflink' | 'copy';
  /** 1: a backup's own point-in-time copy, never listed, removed when the backup ends. */
  internal: number;
  created_at: string;
  /** Its store item (a `snapshot` of the volume's, owner `volume-snapshot:<id>`); null: an engine volume copied by a helper. */
  item_id: string | null;
  exclusive_bytes: number | null;
}

export interface VolumeBackupRow {
  id: string;
  project: string;
  volume_id: string;
  status: 'pending' | 'done' | 'failed';
  reason: string | null;
  size_bytes: number | null;
  sha256: string | null;
  created_at: string;
  finished_at: string | null;
}

export function toVolume(row: VolumeRow, mounts: VolumeMountInfo[]): Volume {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    size_gb: row.size_gb,
    size_enforced: false,
    size_bytes: row.size_bytes,
    exclusive_bytes: row.exclusive_bytes,
    created_at: row.created_at,
    mounts,
    backup_retention: row.backup_retention,
  };
}

export function toVolumeSnapshot(row: VolumeSnapshotRow, volume: string): VolumeSnapshot {
  return {
    id: row.id,
    volume,
    created_at: row.created_at,
    size_bytes: row.size_bytes,
    exclusive_bytes: row.exclusive_bytes,
    method: row.method,
  };
}

export function toVolumeBackup(row: VolumeBackupRow, volume: string, available: boolean): VolumeBackup {
  return {
    id: row.id,
    volume,
    status: row.status,
    available,
    created_at: row.created_at,
    finished_at: row.finished_at,
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    reason: row.reason,
  };
}

type VolumePatch = Partial<
  Pick<
    VolumeRow,
    'status' | 'size_bytes' | 'exclusive_bytes' | 'measured_at' | 'pending_restore' | 'paused' | 'engine_name'
  >
>;

function insert(db: Db, table: string, row: object): boolean {
  const cols = Object.keys(row);
  return (
    db
      .prepare(
        `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')}) ON CONFLICT DO NOTHING`,
      )
      .run(row).changes > 0
  );
}

export class VolumeStore {
  constructor(private readonly db: Db) {}

  /** false when the project already has a volume of that name. */
  insert(row: VolumeRow): boolean {
    return insert(this.db, 'volumes', row);
  }

  get(project: string, name: string): VolumeRow | undefined {
    return this.db.prepare('SELECT * FROM volumes WHERE project = ? AND name = ?').get(project, name) as
      VolumeRow | undefined;
  }

  getById(id: string): VolumeRow | undefined {
    return this.db.prepare('SELECT * FROM volumes WHERE id = ?').get(id) as VolumeRow | undefined;
  }

  list(project: string): VolumeRow[] {
    return this.db
      .prepare("SELECT * FROM volumes WHERE project = ? AND status = 'ready' ORDER BY created_at, id")
      .all(project) as VolumeRow[];
  }

  all(): VolumeRow[] {
    return this.db.prepare('SELECT * FROM volumes').all() as VolumeRow[];
  }

  update(id: string, patch: VolumePatch): VolumeRow {
    const cols = Object.keys(patch);
    this.db
      .prepare(`UPDATE volumes SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`)
      .run({ ...patch, id });
    return this.getById(id)!;
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM volumes WHERE id = ?').run(id);
  }

  /**
   * The swap of a restore, in one statement (one transaction): the record names the engine volume
   * filled beside the old one, with its size, and the intent says the old one is to go.
   */
  swapEngineVolume(
    id: string,
    to: { engine_name: string; item_id: string | null; size_bytes: number; exclusive_bytes: number | null },
    measuredAt: string,
    intent: string,
  ): VolumeRow {
    this.db
      .prepare(
        `UPDATE volumes SET engine_name = @engine_name, item_id = @item_id, size_bytes = @size_bytes,
         exclusive_bytes = @exclusive_bytes, measured_at = @measured_at, pending_restore = @intent WHERE id = @id`,
      )
      .run({ ...to, measured_at: measuredAt, intent, id });
    return this.getById(id)!;
  }

  insertSnapshot(row: VolumeSnapshotRow): void {
    insert(this.db, 'volume_snapshots', row);
  }

  getSnapshot(id: string): VolumeSnapshotRow | undefined {
    return this.db.prepare('SELECT * FROM volume_snapshots WHERE id = ?').get(id) as VolumeSnapshotRow | undefined;
  }

  snapshotsOf(volumeId: string): VolumeSnapshotRow[] {
    return this.db
      .prepare(
        "SELECT * FROM volume_snapshots WHERE volume_id = ? AND status = 'ready' AND internal = 0 ORDER BY created_at, id",
      )
      .all(volumeId) as VolumeSnapshotRow[];
  }

  allSnapshots(): VolumeSnapshotRow[] {
    return this.db.prepare('SELECT * FROM volume_snapshots').all() as VolumeSnapshotRow[];
  }

  markSnapshotReady(
    id: string,
    done: Pick<VolumeSnapshotRow, 'size_bytes' | 'method' | 'engine_name' | 'exclusive_bytes'>,
  ): VolumeSnapshotRow {
    this.db
      .prepare(
        `UPDATE volume_snapshots SET status = 'ready', size_bytes = @size_bytes, method = @method,
         engine_name = @engine_name, exclusive_bytes = @exclusive_bytes WHERE id = @id`,
      )
      .run({ ...done, id });
    return this.getSnapshot(id)!;
  }

  deleteSnapshot(id: string): void {
    this.db.prepare('DELETE FROM volume_snapshots WHERE id = ?').run(id);
  }

  insertBackup(row: VolumeBackupRow): void {
    insert(this.db, 'volume_backups', row);
  }

  getBackup(id: string): VolumeBackupRow | undefined {
    return this.db.prepare('SELECT * FROM volume_backups WHERE id = ?').get(id) as VolumeBackupRow | undefined;
  }

  /** Oldest first. */
  backupsOf(volumeId: string): VolumeBackupRow[] {
    return this.db
      .prepare('SELECT * FROM volume_backups WHERE volume_id = ? ORDER BY created_at, id')
      .all(volumeId) as VolumeBackupRow[];
  }

  allBackups(): VolumeBackupRow[] {
    return this.db.prepare('SELECT * FROM volume_backups').all() as VolumeBackupRow[];
  }

  finishBackup(
    id: string,
    patch: Pick<VolumeBackupRow, 'status' | 'reason' | 'size_bytes' | 'sha256' | 'finished_at'>,
  ): VolumeBackupRow {
    this.db
      .prepare(
        'UPDATE volume_backups SET status = @status, reason = @reason, size_bytes = @size_bytes, sha256 = @sha256, finished_at = @finished_at WHERE id = @id',
      )
      .run({ ...patch, id });
    return this.getBackup(id)!;
  }

  deleteBackup(id: string): void {
    this.db.prepare('DELETE FROM volume_backups WHERE id = ?').run(id);
  }
}
