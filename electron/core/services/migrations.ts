import type { Migration } from '../db/migrate';

/**
 * Services and their blue/green deployments (services/).
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const SERVICES_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE services (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    base TEXT NOT NULL,
    command TEXT,
    port INTEGER NOT NULL,
    environment TEXT NOT NULL,
    data_mounts TEXT NOT NULL,
    health_check TEXT NOT NULL,
    auth TEXT NOT NULL,
    live_deployment TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (project, name)
  );
  CREATE TABLE deployments (
    id TEXT PRIMARY KEY,
    service_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    color TEXT NOT NULL,
    box_id TEXT,
    base TEXT NOT NULL,
    command TEXT,
    environment TEXT NOT NULL,
    port INTEGER NOT NULL,
    data_mounts TEXT NOT NULL,
    health_check TEXT NOT NULL,
    step TEXT,
    reason TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    live_at TEXT
  );
  CREATE INDEX deployments_service ON deployments (service_id, created_at);`,
  // 2: the clocks of the service's live box (boxes' lifecycle), JSON; null: none.
  `ALTER TABLE services ADD COLUMN lifecycle TEXT;`,
];
