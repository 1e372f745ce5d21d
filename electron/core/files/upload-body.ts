import type { FastifyRequest } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { uploadStream } from '../http/body-parsers';
import { randomBase32 } from '../ids';

export interface UploadSource {
  size: number;
  body: Readable;
  /** Removes the spool file, if any. */
  dispose(): void;
}

/**
 * The upload's bytes and their count, which a tar header needs before the first byte. With
 * Content-Length (curl -T file, fetch of a Blob, the CLI) the request streams straight through
 * and a body over the limit is refused before the box is touched. Without it (chunked), the body
 * is spooled to `spoolDir` while counting, refused the moment it passes the limit, then streamed
 * from there.
 */
export async function uploadSource(request: FastifyRequest, spoolDir: string): Promise<UploadSource> {
  // The shared parser already refused a Content-Length over the limit, and counts the bytes as they flow.
  const body = uploadStream(request);
  // A client that goes away midway is an error on the body: whoever reads it sees that; never crash on it.
  body.on('error', () => undefined);
  const declared = request.headers['content-length'];
  if (declared !== undefined) return { size: Number(declared), body, dispose: () => undefined };
  fs.mkdirSync(spoolDir, { recursive: true });
  const file = path.join(spoolDir, `upload-${randomBase32(16)}`);
  let size = 0;
  body.on('data', (chunk: Buffer) => (size += chunk.length));
  try {
    await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  }
  const spooled = fs.createReadStream(file);
  // A write refused before it reads the spool disposes of it unread: that must not crash the core.
  spooled.on('error', () => undefined);
  return {
    size,
    body: spooled,
    dispose: () => {
      spooled.destroy();
      fs.rmSync(file, { force: true });
    },
  };
}

/** Spool files a crash left behind. */
export function clearSpool(spoolDir: string): void {
  fs.rmSync(spoolDir, { recursive: true, force: true });
}

/** "1 GiB", "4 MiB", else bytes. */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MiB`;
  return `${n} bytes`;
}
