import type { Migration } from '../db/migrate';

/**
 * An upload's temporary file beside its target, recorded before its first byte reaches the box,
 * so one a crash cut short is removed at start.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const FILES_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE file_uploads (
    id TEXT PRIMARY KEY,
    box_id TEXT NOT NULL,
    project TEXT NOT NULL,
    box TEXT NOT NULL,
    container_id TEXT NOT NULL,
    temp_path TEXT NOT NULL,
    target TEXT NOT NULL,
    created_at TEXT NOT NULL
  );`,
];
