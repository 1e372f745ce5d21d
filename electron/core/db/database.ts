import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { migrate, type MigratingModule } from './migrate';

export type Db = Database.Database;

/**
 * How long a statement waits for another process's lock. better-sqlite3 is synchronous: a
 * wait blocks the whole event loop (every request, /healthz too), so the request path waits
 * briefly and answers 503 storage_busy instead. Start-up (migrations) may wait longer.
 */
export const BUSY_TIMEOUT_MS = 100;
const STARTUP_BUSY_TIMEOUT_MS = 5000;

/** A statement failed because another connection holds a lock (SQLITE_BUSY*, SQLITE_LOCKED*). */
export function isStorageBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Database.SqliteError && typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

/**
 * Opens the store in the data dir: WAL, fsync on every commit, a short busy timeout, and the
 * modules' migrations applied in their order (db/migrate.ts).
 */
export function openDatabase(dataDir: string, modules: readonly MigratingModule[]): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, 'boxdesk.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${STARTUP_BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  migrate(db, modules);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

export function getMeta(db: Db, key: string): string | undefined {
  return db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
}

export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    key,
    value,
  );
}
