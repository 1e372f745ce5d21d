import type { Migration } from '../db/migrate';

/**
 * Snapshots (snapshots/): a box's root committed as an engine image.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const SNAPSHOTS_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE snapshots (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    box_id TEXT NOT NULL,
    box TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    image TEXT,
    size_bytes INTEGER,
    parent_id TEXT,
    base TEXT,
    config TEXT NOT NULL,
    environment TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (project, box_id, name)
  );
  CREATE INDEX snapshots_project_box ON snapshots (project, box_id, created_at);`,
  // 2: the box's /workspace at that instant, a read-only store item (null: taken before the store, or of a
  // box without one; workspace_empty 1: it was empty, on a copy store, and no item is kept);
  // exclusive_bytes: what deleting it would free, as last measured.
  `ALTER TABLE snapshots ADD COLUMN item_id TEXT;
  ALTER TABLE snapshots ADD COLUMN workspace_empty INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE snapshots ADD COLUMN exclusive_bytes INTEGER;`,
];
