import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar, { type Header as Headers, type Pack } from 'tar-stream';
import { ApiError } from '../../../shared/errors';
import { ArchiveChecker, type ArchivePolicy, type Verdict } from './archive-policy';

/**
 * Reading a tar (or gzip tar) from outside under an archive policy: decompressed here, counted by
 * the bytes it expands to (a sparse file at its full length) and stopped the moment it passes the
 * bound, every entry checked before anything after it is read. What the core hands the engine is
 * then a tar it wrote itself from the checked entries (tar-stream's pack), so the engine never
 * reads an entry the core has not read the same way.
 */
export interface ReadOptions {
  policy: ArchivePolicy;
  /** Bound on the decompressed tar's bytes; past it: 413. */
  limit?: number;
  /** Where the bound comes from, for the 413's detail (e.g. "--upload-limit"). */
  limitName?: string;
}

export interface ArchiveFigures {
  /** Bytes of the tar once decompressed. */
  tarBytes: number;
  /** Entries checked (the root directory's own entry included). */
  entries: number;
}

/** Pieces fed to the extractor are at most this long, so the recent window below always reaches back to a header. */
const PIECE = 64 * 1024;
/** Far more than tar-stream ever holds unparsed (its write buffer and one piece), so a header just read is still here. */
const WINDOW = 1024 * 1024;

/**
 * The last bytes handed to the extractor, by offset. tar-stream does not decode a GNU sparse
 * header (typeflag 'S'); its full length is read from the raw block.
 */
class RecentBytes {
  private chunks: { start: number; buf: Buffer }[] = [];
  total = 0;

  add(buf: Buffer): void {
    this.chunks.push({ start: this.total, buf });
    this.total += buf.length;
    while (this.chunks.length > 1 && this.chunks[0]!.start + this.chunks[0]!.buf.length < this.total - WINDOW)
      this.chunks.shift();
  }

  slice(start: number, length: number): Buffer | null {
    const parts: Buffer[] = [];
    for (const { start: s, buf } of this.chunks) {
      const from = Math.max(start, s);
      const to = Math.min(start + length, s + buf.length);
      if (from < to) parts.push(buf.subarray(from - s, to - s));
    }
    const out = Buffer.concat(parts);
    return out.length === length ? out : null;
  }
}

/** An octal (or GNU base-256) number field of a raw header. */
function rawNumber(block: Buffer, offset: number, length: number): number {
  if (block[offset]! & 0x80) {
    let n = block[offset]! & 0x7f;
    for (let i = 1; i < length; i++) n = n * 256 + block[offset + i]!;
    return n;
  }
  const text = block.toString('ascii', offset, offset + length).replace(/[\0 ].*$/s, '');
  return text ? parseInt(text, 8) : 0;
}

const GNU_SPARSE_TYPE = 0x53; // 'S'

/** A sparse file's full length: from PAX records (GNU formats 0.x and 1.0), or from an old GNU 'S' header block. */
function sparseLength(header: Headers, recent: RecentBytes): number | null {
  const pax = (header as { pax?: Record<string, string> | null }).pax;
  if (pax && Object.keys(pax).some((k) => k.startsWith('GNU.sparse.')))
    return Number(pax['GNU.sparse.realsize'] ?? pax['GNU.sparse.size'] ?? header.size ?? 0);
  if (header.type !== null) return null;
  const offset = (header as { byteOffset?: number }).byteOffset;
  const block = offset === undefined ? null : recent.slice(offset - 512, 512);
  // A header we cannot read back is refused as an unknown type either way.
  if (!block || block[156] !== GNU_SPARSE_TYPE) return null;
  return rawNumber(block, 483, 12);
}

function compression(head: Buffer): 'gzip' | 'xz' | 'bzip2' | 'zstd' | null {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'xz';
  if (head.subarray(0, 3).toString('latin1') === 'BZh') return 'bzip2';
  if (head.subarray(0, 4).equals(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]))) return 'zstd';
  return null;
}

function formatBytes(n: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (n >= size) return `${Number((n / size).toFixed(1))} ${unit}`;
  return `${n} bytes`;
}

function tooLarge(options: ReadOptions, sparse?: { name: string; length: number }): ApiError {
  const limit = formatBytes(options.limit ?? 0);
  const where = options.limitName ? ` (${options.limitName})` : '';
  const why = sparse
    ? `: "${sparse.name}" is a sparse file ${formatBytes(sparse.length)} long, counted at its length`
    : '';
  return new ApiError(
    'payload_too_large',
    `${options.policy.noun} unpacks to more than the ${limit} limit${where}${why}; nothing was kept`,
  );
}

/** A gunzip fed from `from` with backpressure; a failure of either side fails the other. */
function gunzipped(from: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const gunzip = createGunzip();
  void (async () => {
    try {
      for await (const chunk of from) if (!gunzip.write(chunk)) await drained(gunzip);
      gunzip.end();
    } catch (err) {
      gunzip.destroy(err as Error);
    }
  })();
  return gunzip;
}

/** The tar's bytes: gunzipped when the source is gzip, cut into pieces, counted against the bound. */
async function* tarBytes(source: Readable, options: ReadOptions, recent: RecentBytes): AsyncGenerator<Buffer> {
  const input = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const rest = async function* (head: Buffer): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    for (let next = await input.next(); !next.done; next = await input.next()) yield next.value;
  };
  try {
    let head = Buffer.alloc(0);
    while (head.length < 6) {
      const next = await input.next();
      if (next.done) break;
      head = Buffer.concat([head, next.value]);
    }
    const format = compression(head);
    if (format && format !== 'gzip')
      throw new ApiError(
        'invalid_body',
        `${options.policy.noun} is ${format}-compressed; send it as a plain tar or a gzip tar (.tar.gz)`,
      );
    const stream: AsyncIterable<Buffer> = format === 'gzip' ? gunzipped(rest(head)) : rest(head);
    for await (const chunk of stream) {
      for (let at = 0; at < chunk.length; at += PIECE) {
        const piece = chunk.subarray(at, at + PIECE);
        if (options.limit !== undefined && recent.total + piece.length > options.limit) throw tooLarge(options);
        recent.add(piece);
        yield piece;
      }
    }
  } finally {
    source.destroy();
  }
}

/** Resolves when the writable wants more, rejects if it closes first. */
function drained(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      stream.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      stream.off('drain', onDrain);
      reject(new Error('the archive reader stopped'));
    };
    stream.once('drain', onDrain);
    stream.once('close', onClose);
  });
}

function ended(entry: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    entry.on('end', resolve);
    entry.on('error', reject);
    entry.resume();
  });
}

type OnEntry = (verdict: Verdict & { keep: true }, header: Headers, entry: Readable) => Promise<void>;

/** Feeds the extractor and checks each entry it yields; `onEntry` gets the kept ones. Rejects with the first real cause. */
async function walk(source: Readable, options: ReadOptions, onEntry: OnEntry): Promise<ArchiveFigures> {
  const checker = new ArchiveChecker(options.policy);
  const recent = new RecentBytes();
  const extract = tar.extract({ allowUnknownFormat: true } as Parameters<typeof tar.extract>[0]);
  const feed = (async () => {
    try {
      for await (const piece of tarBytes(source, options, recent)) if (!extract.write(piece)) await drained(extract);
      extract.end(undefined);
    } catch (err) {
      extract.destroy(err as Error);
      throw err;
    }
  })();
  const read = (async () => {
    for await (const entry of extract) {
      const header = entry.header;
      const sparse = sparseLength(header, recent);
      if (sparse !== null && options.limit !== undefined && recent.total - (header.size ?? 0) + sparse > options.limit)
        throw tooLarge(options, { name: header.name, length: sparse });
      const verdict = checker.check({ ...header, sparseLength: sparse });
      if (verdict.keep) await onEntry(verdict, header, entry as unknown as Readable);
      else await ended(entry as unknown as Readable);
    }
  })();
  // A refusal stops the reading at once, even when the source is waiting on a slow sender.
  read.catch(() => {
    extract.destroy(null);
    source.destroy();
  });
  const [fed, checked] = await Promise.allSettled([feed, read]);
  if (checked.status === 'rejected') {
    // The extractor's own complaint about a feed that failed is an echo; the feed's error is the cause.
    throw fed.status === 'rejected' && !(checked.reason instanceof ApiError) ? fed.reason : checked.reason;
  }
  if (fed.status === 'rejected') throw fed.reason;
  return { tarBytes: recent.total, entries: checker.entries };
}

/** A problem for what a reader met: the policy's own 4xx as is, a damaged tar or gzip as a 400 naming the archive. */
function asProblem(err: unknown, options: ReadOptions): unknown {
  if (err instanceof ApiError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (/tar header|unexpected end|incorrect header check|invalid|unknown format|header exceeds/i.test(message))
    return new ApiError('invalid_body', `${options.policy.noun} is not a readable tar or gzip tar (${message})`);
  return err;
}

/** Reads an archive to its end under the policy; answers its figures or throws a problem naming what is wrong. */
export async function verifyArchive(source: Readable, options: ReadOptions): Promise<ArchiveFigures> {
  try {
    return await walk(source, options, (_verdict, _header, entry) => ended(entry));
  } catch (err) {
    throw asProblem(err, options);
  }
}

function packHeader(verdict: Verdict & { keep: true }, header: Headers): Parameters<Pack['entry']>[0] {
  const common = {
    name: verdict.name === '' ? './' : verdict.name,
    mode: verdict.mode,
    mtime: header.mtime,
    uid: header.uid,
    gid: header.gid,
    uname: header.uname,
    gname: header.gname,
  };
  switch (header.type) {
    case 'directory':
      return { ...common, name: verdict.name === '' ? './' : `${verdict.name}/`, type: 'directory' };
    case 'symlink':
      return { ...common, type: 'symlink', linkname: verdict.linkname! };
    case 'link':
      return { ...common, type: 'link', linkname: verdict.linkname! };
    default:
      return { ...common, type: 'file', size: header.size ?? 0 };
  }
}

/**
 * Given an entry's name and type, how to rewrite a regular file's content (read whole, at most
 * REWRITE_LIMIT bytes), or null to copy it as it is: a build context's Dockerfile, whose FROM lines
 * the core resolves. It sees every kept entry, so it may also refuse one (by throwing).
 */
export type EntryRewrite = (
  name: string,
  type: 'file' | 'directory' | 'symlink' | 'link',
) => ((content: Buffer) => Promise<Buffer>) | null;
const REWRITE_LIMIT = 1024 * 1024;

async function rewritten(
  pack: Pack,
  out: Parameters<Pack['entry']>[0],
  entry: Readable,
  rewrite: (content: Buffer) => Promise<Buffer>,
): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > REWRITE_LIMIT)
      throw new ApiError(
        'invalid_body',
        `"${out.name}" is larger than ${REWRITE_LIMIT} bytes; it cannot be read whole`,
      );
    chunks.push(chunk);
  }
  const content = await rewrite(Buffer.concat(chunks));
  await new Promise<void>((resolve, reject) =>
    pack.entry({ ...out, size: content.length }, content, (err) => (err ? reject(err) : resolve())),
  );
}

function packEntry(
  pack: Pack,
  verdict: Verdict & { keep: true },
  header: Headers,
  entry: Readable,
  rewrite?: EntryRewrite,
): Promise<void> {
  const out = packHeader(verdict, header);
  const rewriter = rewrite?.(verdict.name, out.type as Parameters<EntryRewrite>[1]);
  if (rewriter && out.type === 'file') return rewritten(pack, out, entry, rewriter);
  return new Promise((resolve, reject) => {
    if (out.type !== 'file') {
      pack.entry(out, (err) => (err ? reject(err) : resolve()));
      entry.resume();
      return;
    }
    const sink = pack.entry(out, (err) => (err ? reject(err) : resolve()));
    sink.on('error', reject);
    entry.on('error', (err) => sink.destroy(err));
    entry.pipe(sink as unknown as NodeJS.WritableStream);
  });
}

/**
 * The entries the policy keeps, as a tar the core writes itself: hand `tar` to the engine; `done`
 * settles once the source is read to its end (and rejects with the problem when it is refused,
 * having failed `tar` so the engine's call fails too and keeps nothing).
 */
export function checkedArchive(
  source: Readable,
  options: ReadOptions,
  rewrite?: EntryRewrite,
): { tar: Readable; done: Promise<ArchiveFigures> } {
  const pack = tar.pack();
  // The consumer (the engine call) listens too; this one only keeps an early failure from being unhandled.
  pack.on('error', () => undefined);
  const done = walk(source, options, (verdict, header, entry) => packEntry(pack, verdict, header, entry, rewrite)).then(
    (figures) => {
      pack.finalize();
      return figures;
    },
    (err: unknown) => {
      const problem = asProblem(err, options);
      pack.destroy(problem as Error);
      throw problem;
    },
  );
  return { tar: pack as unknown as Readable, done };
}
