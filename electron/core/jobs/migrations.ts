import type { Migration } from '../db/migrate';

/**
 * A box's background commands. The output itself stays in the box (job-scripts.ts); a row holds what
 * the core needs to find it again after a restart, and a job's final state once it has ended.
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const JOBS_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    box_id TEXT NOT NULL,
    project TEXT NOT NULL,
    box TEXT NOT NULL,
    command TEXT NOT NULL,
    status TEXT NOT NULL,
    exit_code INTEGER,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    stdout_bytes INTEGER NOT NULL DEFAULT 0,
    stderr_bytes INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX jobs_by_box ON jobs (box_id, started_at);`,
];
