import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { tempDataDir } from '../../../test-support/core-process';
import { modules, openCoreDatabase } from '../modules';
import { BUSY_TIMEOUT_MS, getMeta, setMeta, type Db } from './database';
import { CORE_MIGRATIONS, LEGACY_VERSIONS } from './migrate';

/** The frozen numbered list of before (legacy-migrations.json: data, one SQL text a version). */
const LEGACY_MIGRATIONS: readonly string[] = (
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'legacy-migrations.json'), 'utf8')) as {
    migrations: { version: number; sql: string[] }[];
  }
).migrations.map((migration, index) => {
  assert.equal(migration.version, index + 1, 'the legacy versions are numbered in order from 1');
  return migration.sql.join('\n');
});

function dataDir(t: TestContext): string {
  const dir = tempDataDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A data dir as the core made it before per-module migrations: the numbered list, by the runner of then. */
function legacyDataDir(t: TestContext, upTo: number): string {
  const dir = dataDir(t);
  const db = new Database(path.join(dir, 'boxdesk.db'));
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const [index, sql] of LEGACY_MIGRATIONS.slice(0, upTo).entries()) {
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
        index + 1,
        `2026-01-0${Math.min(index + 1, 9)}T00:00:00.000Z`,
      );
    })();
  }
  if (upTo >= 2) {
    db.prepare("INSERT INTO meta (key, value) VALUES ('instance_id', 'legacy12345')").run();
    db.prepare(
      "INSERT INTO boxes (id, project, name, status, image, config, storage_enforced, environment, tags, created_at, updated_at) VALUES ('box_a', 'p', 'b', 'stopped', 'img', '{}', 0, '{}', '{}', 't', 't')",
    ).run();
  }
  db.close();
  return dir;
}

/** Every table's columns and every index, as SQLite describes them (not the text of their CREATE). */
function schemaOf(db: Db): Record<string, unknown> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(
    tables.map((table) => [
      table,
      {
        columns: db.prepare(`PRAGMA table_xinfo(${table})`).all(),
        indexes: (db.prepare(`PRAGMA index_list(${table})`).all() as { name: string }[])
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((index) => ({ ...index, columns: db.prepare(`PRAGMA index_info(${index.name})`).all() })),
      },
    ]),
  );
}

function freshSchema(t: TestContext): Record<string, unknown> {
  const db = openCoreDatabase(dataDir(t));
  try {
    return schemaOf(db);
  } finally {
    db.close();
  }
}

function applied(db: Db): string[] {
  return (
    db.prepare('SELECT module, version FROM schema_migrations ORDER BY module, version').all() as {
      module: string;
      version: number;
    }[]
  ).map((r) => `${r.module}:${r.version}`);
}

/** Every module's migrations as `module:version`, in the store's order: by module, then by version as a number. */
const everyMigration = [CORE_MIGRATIONS, ...modules]
  .flatMap((m) => m.migrations.map((_, i) => ({ module: m.name, version: i + 1 })))
  .sort((a, b) => a.module.localeCompare(b.module) || a.version - b.version)
  .map(({ module, version }) => `${module}:${version}`);

test('the store is WAL with synchronous=FULL and a short busy timeout', (t) => {
  const db = openCoreDatabase(dataDir(t));
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
  assert.equal(db.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS);
  assert.ok(BUSY_TIMEOUT_MS <= 100, 'a lock held elsewhere must not stall the event loop for long');
  db.close();
});

test("each module's migrations apply once, in order, and survive a reopen", (t) => {
  const dir = dataDir(t);
  const db = openCoreDatabase(dir);
  assert.deepEqual(applied(db), everyMigration);
  setMeta(db, 'k', 'v');
  db.close();
  const again = openCoreDatabase(dir);
  assert.deepEqual(applied(again), everyMigration);
  assert.equal(getMeta(again, 'k'), 'v');
  again.close();
});

test("the numbered versions of before map onto each module's first migrations; the ones after are newer", () => {
  const pairs = Object.values(LEGACY_VERSIONS).flat();
  const mapped = pairs.map(([module, version]) => `${module}:${version}`);
  assert.equal(new Set(mapped).size, mapped.length, 'no module migration is two legacy versions');
  for (const key of mapped) assert.ok(everyMigration.includes(key), `${key} is a module migration`);
  const lastMapped = new Map<string, number>();
  for (const [module, version] of pairs) lastMapped.set(module, Math.max(lastMapped.get(module) ?? 0, version));
  // What no legacy version names was written after the numbered list: a module's later migration.
  for (const key of everyMigration.filter((k) => !mapped.includes(k))) {
    const [module, version] = key.split(':');
    assert.ok(Number(version) > (lastMapped.get(module!) ?? 0), `${key} came after the numbered list`);
  }
  assert.equal(Object.keys(LEGACY_VERSIONS).length, LEGACY_MIGRATIONS.length);
});

test('a data dir made by the numbered migrations is adopted without running any again, its data kept', (t) => {
  const dir = legacyDataDir(t, LEGACY_MIGRATIONS.length);
  // A migration run twice would fail (a table or column that exists); none may run at all.
  const db = openCoreDatabase(dir);
  try {
    assert.deepEqual(applied(db), everyMigration);
    const boxesFirst = db
      .prepare("SELECT applied_at FROM schema_migrations WHERE module = 'boxes' AND version = 1")
      .pluck()
      .get();
    assert.equal(boxesFirst, '2026-01-02T00:00:00.000Z', 'recorded when the old code applied it');
    assert.equal(getMeta(db, 'instance_id'), 'legacy12345');
    assert.equal(db.prepare('SELECT name FROM boxes').pluck().get(), 'b');
    assert.deepEqual(schemaOf(db), freshSchema(t), 'the same tables, columns and indexes as a new data dir');
    assert.equal(
      db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'schema_migrations_numbered'").pluck().get(),
      0,
    );
  } finally {
    db.close();
  }
});

test('a data dir part way through the numbered list gets the rest from the modules', (t) => {
  const dir = legacyDataDir(t, 7);
  const db = openCoreDatabase(dir);
  try {
    assert.deepEqual(applied(db), everyMigration);
    assert.deepEqual(schemaOf(db), freshSchema(t));
    assert.equal(db.prepare('SELECT command FROM boxes').pluck().get(), null, 'boxes got its column 5 (command)');
  } finally {
    db.close();
  }
});

test('a data dir that records a numbered migration this build does not know is refused, unchanged', (t) => {
  const dir = legacyDataDir(t, LEGACY_MIGRATIONS.length);
  const raw = new Database(path.join(dir, 'boxdesk.db'));
  raw.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (11, 'x')").run();
  raw.close();
  assert.throws(() => openCoreDatabase(dir), /records migration 11, which this Boxdesk does not know/);
  const after = new Database(path.join(dir, 'boxdesk.db'));
  assert.deepEqual(
    after.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  );
  after.close();
});
