import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../../../shared/errors';
import { ARCHIVE_POLICIES } from '../archives/archive-policy';
import { checkedArchive, verifyArchive, type ArchiveFigures } from '../archives/checked-tar';

/**
 * A backup's file, read back: it exists, its sha256 is the one recorded when it was written, it
 * unpacks to its end, and every entry is one the backup policy allows. Every failure is a problem
 * naming the backup, never an exception from a stream nobody listens to.
 */

const missing = (id: string) =>
  new ApiError(
    'conflict',
    `the archive of backup "${id}" is missing from the data dir (deleted outside Boxdesk); nothing was changed. Delete this backup and take another`,
  );

/** What went wrong reading a backup, as a problem naming it (a policy refusal or a damaged tar is the backup's state: 409). */
export function backupProblem(err: unknown, id: string): unknown {
  if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return missing(id);
  if (err instanceof ApiError && err.code === 'invalid_body')
    return new ApiError('conflict', `backup "${id}" cannot be restored: ${err.message}; nothing was changed`);
  return err;
}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) hash.update(chunk);
  });
  return hash.digest('hex');
}

function mismatch(id: string): ApiError {
  return new ApiError(
    'conflict',
    `the archive of backup "${id}" does not match the sha256 recorded when it was written (it changed or was damaged since); nothing was changed. Delete this backup and restore another`,
  );
}

/** The checks, before anything is touched. Throws problems as `backupProblem` words them when `id` is given. */
export async function verifyBackupFile(file: string, sha256: string | null, id: string): Promise<ArchiveFigures> {
  try {
    if (sha256 !== null && (await sha256Of(file)) !== sha256) throw mismatch(id);
    return await verifyArchive(fs.createReadStream(file), { policy: ARCHIVE_POLICIES.backup });
  } catch (err) {
    throw backupProblem(err, id);
  }
}

/**
 * The backup as a tar the core writes from its checked entries, for the engine. Its digest is
 * taken again on the way (the file could change after it was verified): `done` rejects when it
 * differs, and the caller drops what was filled.
 */
export function backupTar(file: string, sha256: string | null, id: string): { tar: Readable; done: Promise<void> } {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, cb) {
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  const read = pipeline(fs.createReadStream(file), tap).catch((err: unknown) => {
    tap.destroy(err as Error);
  });
  const { tar, done } = checkedArchive(tap, { policy: ARCHIVE_POLICIES.backup });
  return {
    tar,
    done: Promise.all([read, done]).then(
      () => {
        if (sha256 !== null && hash.digest('hex') !== sha256) throw mismatch(id);
      },
      (err: unknown) => {
        throw backupProblem(err, id);
      },
    ),
  };
}
