import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';

/** A tar of these files (their parent directories made 0755), dated 1970: the same files make the same archive. */
export function tarOf(entries: { path: string; data: Buffer; mode: number }[]): Readable {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const entry of entries) {
    const name = entry.path.replace(/^\//, '');
    for (let dir = path.posix.dirname(name); dir !== '.' && !dirs.has(dir); dir = path.posix.dirname(dir))
      dirs.add(dir);
  }
  for (const dir of [...dirs].sort()) pack.entry({ name: dir, type: 'directory', mode: 0o755, mtime: new Date(0) });
  for (const entry of entries)
    pack.entry({ name: entry.path.replace(/^\//, ''), mode: entry.mode, mtime: new Date(0) }, entry.data);
  pack.finalize();
  return pack as unknown as Readable; // tar-stream's typings predate Readable's newer members
}
