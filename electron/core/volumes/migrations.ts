import type { Migration } from '../db/migrate';

/**
 * Data volumes (items of the copy-on-write store, or engine volumes for those made before it), their snapshots and backups
 * (.tar.gz files in the data dir). status holds the intent, so a crash is undone at start.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const VOLUMES_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE volumes (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    engine_name TEXT NOT NULL,
    status TEXT NOT NULL,
    size_gb INTEGER,
    size_bytes INTEGER NOT NULL DEFAULT 0,
    measured_at TEXT,
    backup_retention INTEGER NOT NULL,
    pending_restore TEXT,
    paused TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (project, name)
  );
  CREATE TABLE volume_snapshots (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    volume_id TEXT NOT NULL,
    engine_name TEXT NOT NULL,
    status TEXT NOT NULL,
    size_bytes INTEGER NOT NULL DEFAULT 0,
    method TEXT NOT NULL DEFAULT 'copy',
    internal INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  );
  CREATE INDEX volume_snapshots_volume ON volume_snapshots (volume_id, created_at);
  CREATE TABLE volume_backups (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    volume_id TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    size_bytes INTEGER,
    sha256 TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX volume_backups_volume ON volume_backups (volume_id, created_at);`,
  // The copy-on-write store: a volume or snapshot made since is a store item (null: a plain engine
  // volume made before, served as it is); exclusive_bytes from the store's usage.
  `ALTER TABLE volumes ADD COLUMN item_id TEXT;
  ALTER TABLE volumes ADD COLUMN exclusive_bytes INTEGER;
  ALTER TABLE volume_snapshots ADD COLUMN item_id TEXT;
  ALTER TABLE volume_snapshots ADD COLUMN exclusive_bytes INTEGER;`,
  // Regions: the engine a volume lives in (null: made before regions, in `local`).
  `ALTER TABLE volumes ADD COLUMN region TEXT;`,
];
