import type { Migration } from '../db/migrate';

/** `box up` (up/): what the last up put in each box it made. Numbered in this folder. Append only. */
export const UP_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE box_ups (
    box_id TEXT PRIMARY KEY,
    base TEXT NOT NULL,
    image TEXT,
    environment TEXT NOT NULL,
    files TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );`,
];
