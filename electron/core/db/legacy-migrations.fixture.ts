/**
 * The one numbered list of migrations the core applied until each module had its own
 * (`schema_migrations(version)`; db/migrate.ts maps its versions onto the modules'). Frozen:
 * only the upgrade test replays it, to make a data dir as that code did.
 */
export const LEGACY_MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE tokens (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     scopes TEXT NOT NULL,
     project TEXT,
     created_at TEXT NOT NULL,
     last_used_at TEXT
   );
   CREATE TABLE bases (
     name TEXT PRIMARY KEY,
     image TEXT NOT NULL,
     created_at TEXT NOT NULL
   );`,
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
  // Whether the box's image was made for it (a fork's commit) and goes when the box goes.
  // Rows from before are marked at start from the engine's labelled fork images.
  `ALTER TABLE boxes ADD COLUMN owns_image INTEGER NOT NULL DEFAULT 0;`,
  // 4: Idempotency-Key answers, kept 24 h (see idempotency/store.ts).
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
  // 5: Snapshots (a box's root committed as an engine image), what a box's root descends from, a
  // recreate in flight (so a crash mid-restore is finished at start), and bases the core made itself.
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
   CREATE INDEX snapshots_project_box ON snapshots (project, box_id, created_at);
   ALTER TABLE boxes ADD COLUMN origin TEXT;
   ALTER TABLE boxes ADD COLUMN pending_root TEXT;
   ALTER TABLE bases ADD COLUMN owns_image INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE bases ADD COLUMN from_snapshot TEXT;`,
  // 6: Publishing: a box is published when url_auth is set. url is the preview URL with the proxy's
  // port at the time; the core rewrites it at start when the proxy's port changed.
  `ALTER TABLE boxes ADD COLUMN url TEXT;
   ALTER TABLE boxes ADD COLUMN url_auth TEXT;
   ALTER TABLE boxes ADD COLUMN published_domains TEXT;`,
  // 7: Data volumes (engine volumes that outlive boxes), their snapshots (engine volumes too) and
  // backups (.tar.gz files in the data dir). status holds the intent, so a crash is undone at start.
  `CREATE TABLE volumes (
     id TEXT PRIMARY KEY,
     project TEXT NOT NULL,
     name TEXT NOT NULL,
     engine_name TEXT NOT NULL,
     status TEXT NOT NULL,
     size_gb INTEGER,
     size_bytes INTEGER NOT NULL DEFAULT 0,
     measured_at TEXT,
     backup_retention INTEGER NOT NULL,
     pending_restore TEXT,
     paused TEXT,
     created_at TEXT NOT NULL,
     UNIQUE (project, name)
   );
   CREATE TABLE volume_snapshots (
     id TEXT PRIMARY KEY,
     project TEXT NOT NULL,
     volume_id TEXT NOT NULL,
     engine_name TEXT NOT NULL,
     status TEXT NOT NULL,
     size_bytes INTEGER NOT NULL DEFAULT 0,
     method TEXT NOT NULL DEFAULT 'copy',
     internal INTEGER NOT NULL DEFAULT 0,
     created_at TEXT NOT NULL
   );
   CREATE INDEX volume_snapshots_volume ON volume_snapshots (volume_id, created_at);
   CREATE TABLE volume_backups (
     id TEXT PRIMARY KEY,
     project TEXT NOT NULL,
     volume_id TEXT NOT NULL,
     status TEXT NOT NULL,
     reason TEXT,
     size_bytes INTEGER,
     sha256 TEXT,
     created_at TEXT NOT NULL,
     finished_at TEXT
   );
   CREATE INDEX volume_backups_volume ON volume_backups (volume_id, created_at);`,
  // Services (services/): a box's own main process, the services and their blue/green deployments.
  `ALTER TABLE boxes ADD COLUMN command TEXT;
   CREATE TABLE services (
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
  // 9: The copy-on-write store's items (storage/): workspaces, snapshots and volumes by id. status
  // is the intent, written before the driver is asked, so a crash is undone or finished at start.
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
  // 10: Files (files/): an upload's temporary file beside its target, recorded before its first byte
  // reaches the box, so one a crash cut short is removed at start.
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
