import type { Migration } from '../db/migrate';

/**
 * Tokens (auth/): each a hash of its secret, its scopes and an optional project.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const AUTH_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    project TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  );`,
];
