/**
 * A ustar archive of a few in-memory files, for a build context made in a browser or by an MCP
 * tool (shared/ has no Node streams). Names up to 255 bytes (split into prefix and name at a `/`).
 * Our own, not a library's: tar-stream needs Node's streams and events in the browser, and
 * nanotar (0.3) cuts names past 100 bytes short without a word.
 */
export interface TarFile {
  /** Relative, with `/`. */
  name: string;
  bytes: Uint8Array;
  /** Permission bits; default 0644. */
  mode?: number;
}

const BLOCK = 512;

function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

function utf8(text: string): Uint8Array {
  return new (
    globalThis as unknown as { TextEncoder: new () => { encode(s: string): Uint8Array } }
  ).TextEncoder().encode(text);
}

function octal(n: number, width: number): Uint8Array {
  return ascii(`${n.toString(8).padStart(width - 1, '0')}\0`);
}

/** Where a name splits into ustar's prefix (155) and name (100), or null when it cannot. */
function splitName(name: Uint8Array): [Uint8Array, Uint8Array] | null {
  if (name.length <= 100) return [new Uint8Array(0), name];
  for (let i = name.length - 1; i > 0; i--) {
    if (name[i] !== 0x2f) continue;
    if (i <= 155 && name.length - i - 1 <= 100 && name.length - i - 1 > 0)
      return [name.subarray(0, i), name.subarray(i + 1)];
  }
  return null;
}

function header(file: TarFile): Uint8Array {
  return tarHeader(file.name, file.bytes.length, file.mode);
}

/** A regular file's ustar header block. */
export function tarHeader(fileName: string, size: number, mode = 0o644): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const split = splitName(utf8(fileName));
  if (!split) throw new Error(`the file name "${fileName}" is too long for the archive`);
  const [prefix, name] = split;
  block.set(name, 0);
  block.set(octal(mode, 8), 100);
  block.set(octal(0, 8), 108);
  block.set(octal(0, 8), 116);
  block.set(octal(size, 12), 124);
  block.set(octal(Math.floor(Date.now() / 1000), 12), 136);
  block.set(ascii('        '), 148);
  block[156] = 0x30; // '0': a regular file
  block.set(ascii('ustar\0'), 257);
  block.set(ascii('00'), 263);
  block.set(prefix, 345);
  let sum = 0;
  for (const b of block) sum += b;
  block.set(ascii(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
  return block;
}

/** The archive's bytes: each file's header and content (padded to 512), then two empty blocks. */
export function tarArchive(files: readonly TarFile[]): Uint8Array {
  const size = files.reduce((n, f) => n + BLOCK + Math.ceil(f.bytes.length / BLOCK) * BLOCK, 2 * BLOCK);
  const out = new Uint8Array(size);
  let at = 0;
  for (const file of files) {
    out.set(header(file), at);
    at += BLOCK;
    out.set(file.bytes, at);
    at += Math.ceil(file.bytes.length / BLOCK) * BLOCK;
  }
  return out;
}

/** Text as a file of the archive. */
export function textFile(name: string, text: string): TarFile {
  return { name, bytes: utf8(text) };
}

/** The zeros after a file's content of `size` bytes, up to its 512-byte block. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The two empty blocks that end an archive. */
export const TAR_END_LENGTH = 2 * BLOCK;
