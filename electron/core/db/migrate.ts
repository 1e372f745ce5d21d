import type Database from 'better-sqlite3';

// better-sqlite3's own type, not database.ts's alias: database.ts imports this file.
type Db = Database.Database;

/** One migration: SQL run in one transaction with its record. */
export type Migration = string;

/** What the runner needs of a module: its name and its own numbered migrations. */
export interface MigratingModule {
  readonly name: string;
  readonly migrations: readonly Migration[];
}

/** The database's own table (meta: the instance id, the store's settings, the preview session key). */
export const CORE_MIGRATIONS: MigratingModule = {
  name: 'core',
  migrations: [`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`],
};

/**
 * Until each module had its own migrations, the core had one numbered list (1 to 10) recorded
 * in `schema_migrations(version)`. Per module, the numbered version each of its migrations was
 * (its first, its second…): a data dir at version N is adopted as having applied them, so
 * nothing runs twice.
 */
const LEGACY_ORIGINS: Readonly<Record<string, readonly number[]>> = {
  core: [1],
  auth: [1],
  bases: [1, 5],
  boxes: [2, 3, 5, 6, 8],
  idempotency: [4],
  snapshots: [5],
  volumes: [7],
  services: [8],
  storage: [9],
  files: [10],
};

/** Each numbered version of before, as the module versions it was. */
export const LEGACY_VERSIONS: Readonly<Record<number, readonly (readonly [module: string, version: number])[]>> =
  Object.entries(LEGACY_ORIGINS).reduce<Record<number, [string, number][]>>((byVersion, [module, versions]) => {
    versions.forEach((legacy, index) => (byVersion[legacy] ??= []).push([module, index + 1]));
    return byVersion;
  }, {});

function columnsOf(db: Db, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
}

/** A data dir made before per-module migrations: its numbered versions become module versions, in one transaction. */
function adoptLegacyVersions(db: Db): void {
  const columns = columnsOf(db, 'schema_migrations');
  if (columns.length === 0 || columns.includes('module')) return;
  db.transaction(() => {
    const rows = db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as {
      version: number;
      applied_at: string;
    }[];
    const unknown = rows.filter((r) => !LEGACY_VERSIONS[r.version]).map((r) => r.version);
    if (unknown.length)
      throw new Error(
        `the data dir's database records migration ${unknown.join(', ')}, which this Boxdesk does not know (a newer build made it); run that build, or start with another --data-dir`,
      );
    db.exec('ALTER TABLE schema_migrations RENAME TO schema_migrations_numbered');
    createTable(db);
    const insert = db.prepare('INSERT INTO schema_migrations (module, version, applied_at) VALUES (?, ?, ?)');
    for (const row of rows)
      for (const [module, version] of LEGACY_VERSIONS[row.version]!) insert.run(module, version, row.applied_at);
    db.exec('DROP TABLE schema_migrations_numbered');
  })();
}

function createTable(db: Db): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT NOT NULL, version INTEGER NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (module, version))',
  );
}

/**
 * Applies what is missing of the core's own migrations, then of each module's, in the order
 * given (modules.ts): a module's tables exist before a later module's start is asked.
 */
export function migrate(db: Db, modules: readonly MigratingModule[]): void {
  adoptLegacyVersions(db);
  createTable(db);
  const applied = new Set(
    (db.prepare('SELECT module, version FROM schema_migrations').all() as { module: string; version: number }[]).map(
      (r) => `${r.module}:${r.version}`,
    ),
  );
  const record = db.prepare('INSERT INTO schema_migrations (module, version, applied_at) VALUES (?, ?, ?)');
  for (const module of [CORE_MIGRATIONS, ...modules]) {
    for (const [index, sql] of module.migrations.entries()) {
      const version = index + 1;
      if (applied.has(`${module.name}:${version}`)) continue;
      db.transaction(() => {
        db.exec(sql);
        record.run(module.name, version, new Date().toISOString());
      })();
    }
  }
}
