import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { startCoreProcess, type CoreProcess } from './core-process';

// For the tests that SIGKILL the real core and start it again on the same data dir.

/**
 * After a crash test: stops the core left running, starts one on the data dir so `cleanUp` can
 * remove what the tests made through the API, stops it and removes the data dir.
 */
export async function cleanUpDataDir(
  dataDir: string,
  running: CoreProcess | undefined,
  cleanUp: (core: CoreProcess) => Promise<void>,
): Promise<void> {
  await running?.stop();
  const core = await startCoreProcess({ dataDir });
  await cleanUp(core);
  await core.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** Runs `query` on the data dir's database, opened read-only. */
export function readDb<T>(dataDir: string, query: (db: Database.Database) => T): T {
  const db = new Database(path.join(dataDir, 'boxdesk.db'), { readonly: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
}

/** The instance id the core recorded in the data dir (its containers and images carry it as a label). */
export function instanceIdOf(dataDir: string): string {
  return readDb(
    dataDir,
    (db) => db.prepare("SELECT value FROM meta WHERE key = 'instance_id'").pluck().get() as string,
  );
}
