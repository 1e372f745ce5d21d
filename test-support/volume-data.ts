import Database from 'better-sqlite3';
import path from 'node:path';
import type { VolumeBackup } from '../shared/schemas/volumes';
import { waitFor } from './docker';

type Api = (method: string, pathname: string, body?: unknown) => Promise<Response>;

/** Every regular file under `dir` in the box with its md5, one line each, sorted: what "the data" is. */
export async function manifest(api: Api, project: string, box: string, dir: string): Promise<Map<string, string>> {
  const res = await api('POST', `/v1/projects/${project}/boxes/${box}/exec`, {
    command: ['sh', '-c', `cd ${dir} && find . -type f -exec md5sum {} + | sort -k2`],
  });
  const out = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  if (res.status !== 200 || out.exit_code !== 0) throw new Error(`manifest of ${box}:${dir} failed: ${out.stderr}`);
  return new Map(
    out.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sum, file] = line.split(/\s+/);
        return [file!, sum!];
      }),
  );
}

/** Files of `before` whose content changed or that are gone in `after` (files added are not counted). */
export function filesLost(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before].filter(([file, sum]) => after.get(file) !== sum).map(([file]) => file);
}

/** A backup that has finished (done or failed). */
export async function backupSettled(api: Api, project: string, volume: string, id: string): Promise<VolumeBackup> {
  return waitFor(
    async () => {
      const b = (await (
        await api('GET', `/v1/projects/${project}/volumes/${volume}/backups/${id}`)
      ).json()) as VolumeBackup;
      return b.status === 'pending' ? null : b;
    },
    120_000,
    `backup ${id}`,
  );
}

/** Writes to the core's store behind its back (a second connection; WAL lets it), as an attacker or a crash would. */
export function writeStore(dataDir: string, sql: string, ...params: unknown[]): void {
  const db = new Database(path.join(dataDir, 'boxdesk.db'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** One column of one row of the core's store. */
export function readStore(dataDir: string, sql: string, ...params: unknown[]): unknown {
  const db = new Database(path.join(dataDir, 'boxdesk.db'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(sql)
      .pluck()
      .get(...params);
  } finally {
    db.close();
  }
}
