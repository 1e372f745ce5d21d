import type { Migration } from '../db/migrate';

/**
 * Idempotency-Key answers, kept 24 h (idempotency/store.ts).
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const IDEMPOTENCY_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE idempotency_keys (
    token_id TEXT NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    owner TEXT NOT NULL,
    status INTEGER,
    body TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (token_id, key)
  );
  CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);`,
];
