import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../../../shared/errors';
import { ARCHIVE_POLICIES, normaliseEntryName } from '../archives/archive-policy';
import { checkedArchive } from '../archives/checked-tar';
import { resolveBoxdeskFrom, type BaseReference } from './dockerfile-from';

export interface SpoolOptions {
  /** Where the checked context is written. */
  file: string;
  /** The Dockerfile's path in the context. */
  dockerfile: string;
  /** --upload-limit: bounds the bytes the context unpacks to. */
  limit: number;
  /** A base's image, or a throw when there is no such base. */
  resolveBase: (base: string) => Promise<string>;
}

/** The Dockerfile's path as a context entry is named, or a 400. */
export function dockerfileEntry(dockerfile: string): string {
  const name = normaliseEntryName(dockerfile);
  if (!name)
    throw new ApiError('invalid_body', `dockerfile "${dockerfile}" must be a relative path inside the build context`, {
      errors: [{ path: 'query.dockerfile', message: 'a relative path inside the context' }],
    });
  return name;
}

/**
 * Reads the build context (a tar or gzip tar) to its end before the build starts, so a context
 * that is too large (413), not a tar, or without its Dockerfile (400) is refused with nothing
 * left. It is checked under the build-context policy and written to `file` as the tar the engine
 * will get, with the Dockerfile's `FROM boxdesk/<base>` lines resolved.
 */
export async function spoolContext(body: Readable, options: SpoolOptions): Promise<{ references: BaseReference[] }> {
  const wanted = dockerfileEntry(options.dockerfile);
  let references: BaseReference[] | null = null;
  const { tar, done } = checkedArchive(
    body,
    { policy: ARCHIVE_POLICIES.buildContext, limit: options.limit, limitName: '--upload-limit' },
    (name, type) => {
      // The Dockerfile the engine reads is the one rewritten: no second entry, link or
      // non-directory may take its path, or a folder above it, later in the archive.
      const above = wanted.startsWith(`${name}/`);
      if ((name === wanted && (type !== 'file' || references !== null)) || (above && type !== 'directory'))
        throw new ApiError(
          'invalid_body',
          `the build context has a second entry at "${name}", where its Dockerfile "${wanted}" is; send one Dockerfile`,
        );
      if (name !== wanted) return null;
      references = [];
      return async (content) => {
        const resolved = await resolveBoxdeskFrom(content.toString('utf8'), options.resolveBase);
        references = resolved.references;
        return Buffer.from(resolved.text, 'utf8');
      };
    },
  );
  fs.mkdirSync(path.dirname(options.file), { recursive: true });
  try {
    await Promise.all([pipeline(tar, fs.createWriteStream(options.file)), done]);
  } catch (err) {
    fs.rmSync(options.file, { force: true });
    throw err;
  }
  if (references === null) {
    fs.rmSync(options.file, { force: true });
    throw new ApiError(
      'invalid_body',
      `the build context has no Dockerfile at "${wanted}"; send it in the context's tar, or name its path with dockerfile=`,
    );
  }
  return { references };
}
