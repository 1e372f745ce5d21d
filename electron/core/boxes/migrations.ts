import type { Migration } from '../db/migrate';

/**
 * Boxes (boxes/). The table is this module's: columns other modules need are its columns too,
 * read and written through BoxesPort (publishing's published state, a service's main process).
 * Numbered in this folder: the Nth entry is version N. Append only; never edit a shipped one.
 */
export const BOXES_MIGRATIONS: readonly Migration[] = [
  `CREATE TABLE boxes (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    status_reason TEXT,
    base TEXT,
    image TEXT NOT NULL,
    config TEXT NOT NULL,
    storage_enforced INTEGER NOT NULL,
    data_mounts TEXT,
    environment TEXT NOT NULL,
    tags TEXT NOT NULL,
    port INTEGER,
    grace_seconds INTEGER,
    container_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (project, name)
  );
  CREATE INDEX boxes_project_created ON boxes (project, created_at, id);`,
  // 2: whether the box's image was made for it (a fork's commit) and goes when the box goes.
  // Rows from before are marked at start from the engine's labelled fork images.
  `ALTER TABLE boxes ADD COLUMN owns_image INTEGER NOT NULL DEFAULT 0;`,
  // 3: the snapshot a box's root descends from, and a root replacement in flight (finished at start after a crash).
  `ALTER TABLE boxes ADD COLUMN origin TEXT;
  ALTER TABLE boxes ADD COLUMN pending_root TEXT;`,
  // 4: the published state (publishing/ through BoxesPort.published): url_auth set means published; url is the
  // preview URL with the proxy's port at the time, rewritten at start when the port changed.
  `ALTER TABLE boxes ADD COLUMN url TEXT;
  ALTER TABLE boxes ADD COLUMN url_auth TEXT;
  ALTER TABLE boxes ADD COLUMN published_domains TEXT;`,
  // 5: the box's own main process, given by a service's deployment (InternalCreate.command).
  `ALTER TABLE boxes ADD COLUMN command TEXT;`,
  // 6: the box's /workspace on the copy-on-write store (null: a box made before the store, or where
  // none works), the engine volume that shows it, its quota, its sizes as last measured, and the
  // container a snapshot or fork froze (thawed at start after a crash).
  `ALTER TABLE boxes ADD COLUMN workspace_item TEXT;
  ALTER TABLE boxes ADD COLUMN workspace_volume TEXT;
  ALTER TABLE boxes ADD COLUMN workspace_quota INTEGER;
  ALTER TABLE boxes ADD COLUMN size_bytes INTEGER;
  ALTER TABLE boxes ADD COLUMN exclusive_bytes INTEGER;
  ALTER TABLE boxes ADD COLUMN frozen TEXT;`,
  // 7: the lifecycle clocks (boxes/lifecycle/): their settings (JSON), the last use that counts for idleness,
  // and when the box took its status (a stopped box's auto_delete counts from it).
  `ALTER TABLE boxes ADD COLUMN lifecycle TEXT;
  ALTER TABLE boxes ADD COLUMN last_used_at TEXT;
  ALTER TABLE boxes ADD COLUMN status_since TEXT;`,
  // 8: more published ports than the box's port (publishing/), a JSON array; each at {port}.{box}--{project}.localhost.
  `ALTER TABLE boxes ADD COLUMN published_ports TEXT;`,
  // 9: its network settings (egress policy, allow list, host access) as JSON; null: the defaults.
  `ALTER TABLE boxes ADD COLUMN network TEXT;`,
  // 10: the names of the secrets it holds placeholders of (secrets/), a JSON array; null: none.
  `ALTER TABLE boxes ADD COLUMN secrets TEXT;`,
];
