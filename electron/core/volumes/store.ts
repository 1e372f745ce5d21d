import type { Volume, VolumeBackup, VolumeMountInfo, VolumeSnapshot } from '../../../shared/schemas/volumes';
import type { Db } from '../db/database';
import { ProjectTable, Table } from '../db/table';

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
  /** The region (engine) it lives in; null: made before regions, in `local`. */
  region: string | null;
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

/** `sizeEnforced`: whether the store caps the volume's item at size_gb (VolumeItems.sizeEnforced). */
export function toVolume(row: VolumeRow, mounts: VolumeMountInfo[], sizeEnforced: boolean): Volume {
  return {
    id: row.id,
    name: row.name,
    project: row.project,
    size_gb: row.size_gb,
    size_enforced: sizeEnforced,
    size_bytes: row.size_bytes,
    exclusive_bytes: row.exclusive_bytes,
    created_at: row.created_at,
    mounts,
    backup_retention: row.backup_retention,
    region: row.region ?? 'local',
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
    | 'status'
    | 'engine_name'
    | 'item_id'
    | 'size_bytes'
    | 'exclusive_bytes'
    | 'measured_at'
    | 'pending_restore'
    | 'paused'
  >
>;

/** Volumes (the main table), their snapshots and their backups. */
export class VolumeStore extends ProjectTable<VolumeRow, VolumePatch> {
  readonly snapshots: Table<VolumeSnapshotRow>;
  readonly backups: Table<VolumeBackupRow>;

  constructor(db: Db) {
    super(db, 'volumes');
    this.snapshots = new Table(db, 'volume_snapshots');
    this.backups = new Table(db, 'volume_backups');
  }

  /** false when the project already has a volume of that name. */
  insert(row: VolumeRow): boolean {
    return this.insertUnlessTaken(row);
  }

  list(project: string): VolumeRow[] {
    return this.select("WHERE project = ? AND status = 'ready' ORDER BY created_at, id", project);
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
    return this.update(id, { ...to, measured_at: measuredAt, pending_restore: intent });
  }

  /** A volume's listed snapshots (ready, not a backup's own), oldest first. */
  snapshotsOf(volumeId: string): VolumeSnapshotRow[] {
    return this.snapshots.select(
      "WHERE volume_id = ? AND status = 'ready' AND internal = 0 ORDER BY created_at, id",
      volumeId,
    );
  }

  markSnapshotReady(
    id: string,
    done: Pick<VolumeSnapshotRow, 'size_bytes' | 'method' | 'engine_name' | 'exclusive_bytes'>,
  ): VolumeSnapshotRow {
    return this.snapshots.update(id, { status: 'ready', ...done });
  }

  /** Oldest first. */
  backupsOf(volumeId: string): VolumeBackupRow[] {
    return this.backups.select('WHERE volume_id = ? ORDER BY created_at, id', volumeId);
  }

  finishBackup(
    id: string,
    patch: Pick<VolumeBackupRow, 'status' | 'reason' | 'size_bytes' | 'sha256' | 'finished_at'>,
  ): VolumeBackupRow {
    return this.backups.update(id, patch);
  }
}
