import type { Migration } from '../db/migrate';

/**
 * The copy-on-write store's items: workspaces, snapshots and volumes by id. status is the intent,
 * written before the driver is asked, so a crash is undone or finished at start.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const STORAGE_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE storage_items (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    owner TEXT NOT NULL,
    parent_id TEXT,
    driver TEXT NOT NULL,
    quota_bytes INTEGER,
    status TEXT NOT NULL,
    pending TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX storage_items_owner ON storage_items (owner);`,
  // The owner's labels for the item's engine volume (a data volume's `boxdesk.id`, `boxdesk.volume`, …), JSON.
  `ALTER TABLE storage_items ADD COLUMN labels TEXT;`,
];
