import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** One tar entry as tar-stream writes it, with its body for regular files. */
export interface TarEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  linkname?: string;
  mode?: number;
  devmajor?: number;
  devminor?: number;
  body?: string | Buffer;
}

/** A tar of these entries, written by tar-stream (which writes whatever it is told: the point here). */
export async function tarOf(entries: TarEntry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on('data', (c) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => p.on('end', () => resolve()));
  for (const { body, ...header } of entries) {
    if (body !== undefined) p.entry(header, body);
    else p.entry(header);
  }
  p.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** Something a box's data could hold, then the one hostile entry (or entries) of the case. */
export interface HostileCase {
  name: string;
  entries: TarEntry[];
}

/**
 * The hostile entries every archive policy is tested with: a device node (c 1 1, /dev/mem), a
 * fifo, a symlink to / with a file written through it, hard links out of the tree, absolute and
 * `..` names, and a relative symlink that climbs out.
 */
export const HOSTILE_CASES: HostileCase[] = [
  { name: 'device node c 1 1', entries: [{ name: 'mem', type: 'character-device', devmajor: 1, devminor: 1 }] },
  { name: 'fifo', entries: [{ name: 'pipe', type: 'fifo' }] },
  {
    name: 'symlink to / with a file through it',
    entries: [
      { name: 'root', type: 'symlink', linkname: '/' },
      { name: 'root/tmp/escaped', body: 'through the link\n' },
    ],
  },
  { name: 'hard link to /etc/passwd', entries: [{ name: 'passwd', type: 'link', linkname: '/etc/passwd' }] },
  { name: 'hard link with ..', entries: [{ name: 'up', type: 'link', linkname: '../../etc/passwd' }] },
  { name: 'absolute name', entries: [{ name: '/tmp/boxdesk-absolute', body: 'absolute\n' }] },
  { name: '.. name', entries: [{ name: '../../../tmp/boxdesk-dotdot', body: 'dotdot\n' }] },
  { name: 'relative symlink leaving the tree', entries: [{ name: 'out', type: 'symlink', linkname: '../../../etc' }] },
];

/** A ustar header block for a regular file of `size` bytes, without its data (so no data need be made). */
function fileHeader(name: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  block.write(
    `${Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0')}\0`,
    136,
    'ascii',
  );
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/**
 * A gzip tar whose one file of zeros unpacks to `bytes` (a multiple of 1 MiB) from about a
 * thousandth of that: gzip members concatenated (a gzip reader reads them as one stream), the
 * same compressed MiB of zeros repeated, so making it costs nothing.
 */
export function gzipBomb(bytes: number): Buffer {
  const MiB = 1024 * 1024;
  const zeros = gzipSync(Buffer.alloc(MiB), { level: 9 });
  const parts = [gzipSync(fileHeader('zeros', bytes))];
  for (let i = 0; i < bytes / MiB; i++) parts.push(zeros);
  parts.push(gzipSync(Buffer.alloc(1024)));
  return Buffer.concat(parts);
}

/**
 * A tar holding one sparse file of `bytes` (a hole and a few bytes at its end), made by GNU tar
 * the way a user would: `--format=gnu` writes the old GNU sparse header ('S'), `--format=posix`
 * the PAX form (GNU.sparse.*). A few KiB on the wire.
 */
export function sparseBomb(format: 'gnu' | 'posix', bytes: number): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-sparse-'));
  try {
    const file = path.join(dir, 'holes');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, bytes - 4);
    fs.appendFileSync(file, 'end\n');
    return execFileSync('tar', [`--format=${format}`, '--sparse', '-c', '-f', '-', '-C', dir, 'holes'], {
      maxBuffer: 64 * 1024 * 1024,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
