/** Numbered migrations: the Nth entry is version N. Append only; never edit a shipped one. */
export const MIGRATIONS: string[] = [
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
];
