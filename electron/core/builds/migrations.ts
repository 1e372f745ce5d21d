import type { Migration } from '../db/migrate';

/**
 * Builds of bases from a Dockerfile (builds/): each build's record and its log, both bounded
 * (store.ts). Numbered in this folder: the Nth entry is version N. Append only.
 */
export const BUILDS_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE base_builds (
    id TEXT PRIMARY KEY,
    base TEXT NOT NULL,
    status TEXT NOT NULL,
    step TEXT,
    error TEXT,
    image TEXT,
    created_at TEXT NOT NULL,
    ended_at TEXT
  );
  CREATE INDEX base_builds_by_base ON base_builds (base, created_at);
  CREATE TABLE base_build_log (
    build_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (build_id, seq)
  );`,
];
