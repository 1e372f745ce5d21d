import type { FastifyInstance, FastifyRequest } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import { randomBase32 } from '../ids';

/**
 * Streamed application/octet-stream bodies for the routes of this scope: the handler gets the
 * request stream itself, nothing is buffered. (One small function, so the shared body parser can
 * replace it.)
 */
export function acceptOctetStream(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => {
    // A client that goes away midway is an 'aborted' error on the body: whoever reads the body sees it; never crash on it.
    payload.on('error', () => undefined);
    done(null, payload);
  });
}

export interface UploadSource {
  size: number;
  body: Readable;
  /** Removes the spool file, if any. */
  dispose(): void;
}

function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `the upload is larger than the ${formatBytes(limit)} limit (--upload-limit); nothing was written`);
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MiB`;
  return `${n} bytes`;
}

/**
 * The upload's bytes and their count, which a tar header needs before the first byte. With
 * Content-Length (curl -T file, fetch of a Blob, the CLI) the request streams straight through
 * and a body over the limit is refused before the box is touched. Without it (chunked), the body
 * is spooled to `spoolDir` while counting, refused the moment it passes the limit, then streamed
 * from there.
 */
export async function uploadSource(request: FastifyRequest, limit: number, spoolDir: string): Promise<UploadSource> {
  const body = request.body as Readable | undefined;
  if (!body || typeof body.pipe !== 'function') throw new ApiError('unsupported_media_type', 'send the file as the body with Content-Type: application/octet-stream');
  const declared = request.headers['content-length'];
  if (declared !== undefined) {
    const size = Number(declared);
    if (size > limit) {
      // Read and drop the rest so the client, still sending, gets the answer rather than a reset.
      body.resume();
      throw tooLarge(limit);
    }
    return { size, body, dispose: () => undefined };
  }
  fs.mkdirSync(spoolDir, { recursive: true });
  const file = path.join(spoolDir, `upload-${randomBase32(16)}`);
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, callback) {
      size += chunk.length;
      callback(size > limit ? tooLarge(limit) : null, chunk);
    },
  });
  try {
    await pipeline(body, counter, fs.createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    fs.rmSync(file, { force: true });
    body.destroy();
    throw err;
  }
  return { size, body: fs.createReadStream(file), dispose: () => fs.rmSync(file, { force: true }) };
}

/** Spool files a crash left behind. */
export function clearSpool(spoolDir: string): void {
  fs.rmSync(spoolDir, { recursive: true, force: true });
}
