import { PassThrough, Readable, Transform } from 'node:stream';
import tar, { type Header as Headers } from 'tar-stream';
import { ApiError } from '../../../shared/errors';
import type { FileStat, FileType } from '../../../shared/schemas/files';
import { ARCHIVE_POLICIES, ArchiveChecker } from '../archives/archive-policy';
import { formatMode, joinBoxPath } from './box-path';

/**
 * Room in each stage of a transfer. With the defaults (16 KiB) every socket read becomes a
 * hand-off between the engine, the core and the client, and on a busy machine each hand-off waits
 * for the scheduler; a few MiB per stage lets each side run ahead. Memory stays bounded by it.
 */
const STREAM_OPTIONS = { highWaterMark: 4 * 1024 * 1024 };

/** A bounded buffer between two streams. */
export function transferBuffer(): PassThrough {
  return new PassThrough(STREAM_OPTIONS);
}

/** The engine's tar names can carry a leading "/" (an archive of the root) and a trailing one (directories). */
function trimSlashes(name: string): string {
  return name.replace(/^\/+/, '').replace(/\/+$/, '');
}

function entryType(header: Headers): FileType {
  switch (header.type) {
    case 'file':
    case 'contiguous-file':
      return 'file';
    case 'directory':
      return 'dir';
    case 'symlink':
      return 'symlink';
    default:
      return 'other';
  }
}

/** A stat from a tar header (mtimes in tars are whole seconds). */
export function statFromHeader(path: string, header: Headers): FileStat {
  const type = entryType(header);
  const linkTarget = type === 'symlink' ? (header.linkname ?? '') : undefined;
  return {
    path,
    type,
    size: type === 'file' ? (header.size ?? 0) : type === 'symlink' ? Buffer.byteLength(linkTarget ?? '') : 0,
    mode: formatMode(header.mode ?? 0),
    mtime: (header.mtime ?? new Date(0)).toISOString(),
    ...(linkTarget !== undefined ? { link_target: linkTarget } : {}),
  };
}

/** A number field of a tar header: octal text, or base-256 when the top bit is set (GNU, for big sizes). */
function headerNumber(block: Buffer, offset: number, length: number): number {
  if (block[offset]! & 0x80) {
    let n = block[offset]! & 0x7f;
    for (let i = 1; i < length; i++) n = n * 256 + block[offset + i]!;
    return n;
  }
  const text = block
    .toString('ascii', offset, offset + length)
    .replace(/[\0 ].*$/s, '')
    .trim();
  return text ? parseInt(text, 8) : 0;
}

/** The `size` record of a PAX extended header, when it has one (files over 8 GiB). */
function paxSize(data: Buffer): number | null {
  const m = /(?:^|\n)\d+ size=(\d+)\n/.exec(data.toString('utf8'));
  return m ? Number(m[1]) : null;
}

const BLOCK = 512;

/**
 * The one regular file of an engine archive of a file path, as a stream of its bytes. The tar is
 * parsed here rather than by a general extractor: the file's bytes are handed on as the slices of
 * the engine's own chunks they arrive in, with backpressure, and the rest of the archive (padding
 * and trailer) is dropped. PAX and GNU long-name headers before the entry are understood; anything
 * but a regular file first is refused.
 */
export function singleFile(archive: Readable, path: string): Promise<{ size: number; stream: Readable }> {
  return new Promise((resolve, reject) => {
    const out = transferBuffer();
    let pending: Buffer = Buffer.alloc(0);
    let extra: { bytes: number; pax: boolean } | null = null;
    let override: number | null = null;
    let remaining = -1;
    const fail = (err: Error) => {
      archive.destroy();
      if (remaining < 0) reject(err);
      else out.destroy(err);
    };
    const onHeader = (block: Buffer): boolean => {
      if (block.every((b) => b === 0)) {
        fail(new ApiError('not_found', `"${path}" not found in the box`));
        return false;
      }
      const type = String.fromCharCode(block[156]!);
      const size = headerNumber(block, 124, 12);
      if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
        extra = { bytes: Math.ceil(size / BLOCK) * BLOCK, pax: type === 'x' };
        return true;
      }
      if (type !== '0' && type !== '\0' && type !== '7') {
        fail(new ApiError('invalid_body', `"${path}" is not a regular file`));
        return false;
      }
      remaining = override ?? size;
      resolve({ size: remaining, stream: out });
      if (remaining === 0) out.end();
      return true;
    };
    const onData = (chunk: Buffer) => {
      let data: Buffer = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      pending = Buffer.alloc(0);
      while (remaining < 0 && data.length > 0) {
        if (extra) {
          if (data.length < extra.bytes) {
            pending = data;
            return;
          }
          if (extra.pax) override = paxSize(data.subarray(0, extra.bytes)) ?? override;
          data = data.subarray(extra.bytes);
          extra = null;
          continue;
        }
        if (data.length < BLOCK) {
          pending = data;
          return;
        }
        if (!onHeader(data.subarray(0, BLOCK))) return;
        data = data.subarray(BLOCK);
      }
      if (remaining <= 0 || data.length === 0) return;
      const part = data.length > remaining ? data.subarray(0, remaining) : data;
      remaining -= part.length;
      const room = out.write(part);
      if (remaining === 0) {
        out.end();
        archive.destroy();
      } else if (!room) {
        archive.pause();
        out.once('drain', () => archive.resume());
      }
    };
    archive.on('data', onData);
    archive.on('error', fail);
    archive.on('end', () => {
      if (remaining !== 0) fail(new ApiError('internal', `the engine's archive of "${path}" ended early`));
    });
    out.on('close', () => {
      if (!out.writableFinished) archive.destroy();
    });
  });
}

/**
 * The direct children of the directory an engine archive holds. The archive carries the whole tree
 * with file contents: they stream through and are dropped (memory stays flat, time grows with the
 * tree's size).
 */
export async function directChildren(archive: Readable, dirPath: string): Promise<FileStat[]> {
  const extract = tar.extract();
  const items: FileStat[] = [];
  let prefix: string | null = null;
  archive.on('error', (err) => extract.destroy(err));
  archive.pipe(extract);
  for await (const entry of extract) {
    const name = trimSlashes(entry.header.name);
    if (prefix === null) {
      prefix = name;
    } else {
      const rel = prefix === '' ? name : name.slice(prefix.length + 1);
      if (rel && !rel.includes('/')) items.push(statFromHeader(joinBoxPath(dirPath, rel), entry.header));
    }
    entry.resume();
  }
  return items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The header of an archive's first entry (for a symlink's target as stored); reads nothing more. */
export async function firstHeader(archive: Readable): Promise<Headers | null> {
  const extract = tar.extract();
  archive.on('error', (err) => extract.destroy(err));
  archive.pipe(extract);
  try {
    for await (const entry of extract) {
      entry.resume();
      return entry.header;
    }
    return null;
  } finally {
    archive.destroy();
    extract.destroy();
  }
}

export { holdsEntries } from '../archives/holds-entries';

/** A relative entry name made of plain segments only. */
export function isPlainRelative(name: string): boolean {
  return (
    name !== '' &&
    !name.startsWith('/') &&
    name.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\0'))
  );
}

/**
 * A directory tree as a tar the core vouches for: from the engine's archive, what the files-archive
 * policy keeps (archive-policy.ts: regular files and directories, named relative to the directory
 * itself with plain segments, permission bits only). Symlinks, devices, fifos and links are left
 * out (a client unpacking it cannot be led outside its target).
 */
export function repackTree(archive: Readable): Readable {
  const extract = tar.extract(STREAM_OPTIONS);
  const pack = tar.pack(STREAM_OPTIONS);
  const checker = new ArchiveChecker(ARCHIVE_POLICIES.filesArchive);
  let prefix: string | null = null;
  const skip = (stream: { on(event: 'end', fn: () => void): unknown; resume(): unknown }, next: () => void) => {
    stream.on('end', () => next());
    stream.resume();
  };
  extract.on('entry', (header, stream, next) => {
    const name = trimSlashes(header.name);
    if (prefix === null) {
      prefix = name;
      return skip(stream, next);
    }
    const rel = prefix === '' ? name : name.slice(prefix.length + 1);
    const verdict = isPlainRelative(rel) ? checker.check({ ...header, name: rel }) : { keep: false as const };
    if (!verdict.keep) return skip(stream, next);
    const mode = verdict.mode;
    if (header.type === 'directory') {
      pack.entry({ name: rel, type: 'directory', mode, mtime: header.mtime });
      return skip(stream, next);
    }
    const sink = pack.entry({ name: rel, type: 'file', size: header.size ?? 0, mode, mtime: header.mtime }, (err) =>
      err ? pack.destroy(err) : next(),
    );
    sink.on('error', () => undefined);
    stream.pipe(sink);
  });
  extract.on('finish', () => pack.finalize());
  extract.on('error', (err: Error) => pack.destroy(err));
  archive.on('error', (err) => extract.destroy(err));
  pack.on('close', () => {
    archive.destroy();
    extract.destroy();
  });
  archive.pipe(extract);
  return pack as unknown as Readable;
}

export interface PackedEntry {
  /** Relative to the directory the archive is extracted into; only plain segments. */
  name: string;
  mode: number;
}

function writeOctal(block: Buffer, value: number, offset: number, length: number): void {
  if (value >= 8 ** (length - 1)) {
    // Base-256 (GNU) for numbers that do not fit the octal field.
    block[offset] = 0x80;
    let v = value;
    for (let k = offset + length - 1; k > offset; k--) {
      block[k] = v % 256;
      v = Math.floor(v / 256);
    }
    return;
  }
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii');
}

function headerBlock(name: string, type: '0' | '5' | 'x', size: number, mode: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'utf8');
  writeOctal(block, mode & 0o7777, 100, 8);
  writeOctal(block, 0, 108, 8);
  writeOctal(block, 0, 116, 8);
  writeOctal(block, size, 124, 12);
  writeOctal(block, mtime, 136, 12);
  block.write(type, 156, 1, 'ascii');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

/** "len path=value\n", where len counts the whole record including itself. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body);
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return Buffer.from(`${len}${body}`, 'utf8');
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The header block(s) of one entry: a PAX header first when the name does not fit 100 bytes. */
function entryHeader(name: string, type: '0' | '5', size: number, mode: number, mtime: number): Buffer {
  const full = type === '5' ? `${name}/` : name;
  if (Buffer.byteLength(full) <= 100) return headerBlock(full, type, size, mode, mtime);
  const pax = paxRecord('path', full);
  return Buffer.concat([
    headerBlock('PaxHeader', 'x', pax.length, 0o644, mtime),
    pax,
    padding(pax.length),
    headerBlock(full.slice(0, 99), type, size, mode, mtime),
  ]);
}

/**
 * A tar the core makes for the engine: directories, then at most one regular file whose bytes
 * stream from `body`. Names are checked here again (relative, plain segments), so an entry can
 * never land outside the directory it is extracted into. The headers are written here and the
 * body's own chunks pass through untouched (with backpressure); a body that ends short or runs
 * long fails the stream, which aborts the engine call.
 */
export function packEntries(dirs: PackedEntry[], file?: PackedEntry & { size: number; body: Readable }): Readable {
  for (const e of file ? [...dirs, file] : dirs) {
    if (!isPlainRelative(e.name)) {
      throw new ApiError('invalid_body', `refusing an archive entry named "${e.name}"`);
    }
  }
  const mtime = Math.floor(Date.now() / 1000);
  const head = Buffer.concat([
    ...dirs.map((d) => entryHeader(d.name, '5', 0, d.mode, mtime)),
    ...(file ? [entryHeader(file.name, '0', file.size, file.mode, mtime)] : []),
  ]);
  const trailer = Buffer.alloc(2 * BLOCK);
  if (!file) return Readable.from([Buffer.concat([head, trailer])]);
  let seen = 0;
  const out = new Transform({
    ...STREAM_OPTIONS,
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > file.size) return done(new Error(`the upload is longer than its declared ${file.size} bytes`));
      done(null, chunk);
    },
    flush(done) {
      if (seen !== file.size) return done(new Error(`the upload ended after ${seen} of its ${file.size} bytes`));
      done(null, Buffer.concat([padding(file.size), trailer]));
    },
  });
  out.push(head);
  file.body.on('error', (err) => out.destroy(err));
  file.body.on('close', () => {
    if (!file.body.readableEnded) out.destroy(new Error('the upload ended before its last byte'));
  });
  file.body.pipe(out);
  return out;
}
