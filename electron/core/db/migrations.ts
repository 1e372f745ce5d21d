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
  // Publishing: a box is published when url_auth is set. url is the preview URL with the proxy's
  // port at the time; the core rewrites it at start when the proxy's port changed.
  `ALTER TABLE boxes ADD COLUMN url TEXT;
   ALTER TABLE boxes ADD COLUMN url_auth TEXT;
   ALTER TABLE boxes ADD COLUMN published_domains TEXT;`,
];
