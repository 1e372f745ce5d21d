import posix from 'node:path/posix';
import { Readable } from 'node:stream';
import tar, { type Header as TarHeader } from 'tar-stream';
import { EngineError } from '../container-engine';
import { ContainerFs, dir, joinPath, splitPath, type DirNode, type FsNode } from './memory-fs';

type Header = Partial<TarHeader> & { name: string };

function headerOf(name: string, node: FsNode): Header {
  const base = { mode: node.mode, mtime: node.mtime, uid: 0, gid: 0, uname: 'root', gname: 'root' };
  switch (node.kind) {
    case 'directory':
      return { ...base, name: `${name}/`, type: 'directory' };
    case 'file':
      return { ...base, name, type: 'file', size: node.data.length };
    case 'symlink':
      return { ...base, name, type: 'symlink', linkname: node.target };
    case 'other':
      return { ...base, name, type: node.device };
  }
}

/** Streams `entries` as a tar, one entry at a time. */
function packStream(entries: Iterable<[string, FsNode]>): Readable {
  const pack = tar.pack();
  void (async () => {
    for (const [name, node] of entries) {
      await new Promise<void>((resolve, reject) => {
        const cb = (err?: Error | null) => (err ? reject(err) : resolve());
        if (node.kind === 'file') pack.entry(headerOf(name, node), node.data, cb);
        else pack.entry(headerOf(name, node), cb);
      });
    }
    pack.finalize();
  })().catch((err: Error) => pack.destroy(err));
  return pack as unknown as Readable;
}

/** Every node under a canonical path, through mounts, directories before what they hold, names sorted. */
function* walk(fs: ContainerFs, components: string[], name: string): Generator<[string, FsNode]> {
  const node = fs.nodeAt(components);
  if (!node) return;
  yield [name, node];
  if (node.kind !== 'directory') return;
  for (const child of [...node.entries.keys()].sort())
    yield* walk(fs, [...components, child], name === '/' ? `/${child}` : `${name}/${child}`);
}

/**
 * A tar of `path` as the engine's archive call makes it: entries named from
 * the path's last component (`d/`, `d/e/f.txt`), `./…` for a path ending in
 * `/.`, `/…` for the root; a symlink is archived as itself.
 */
export function archiveOf(fs: ContainerFs, path: string, containerId: string): Readable {
  const contents = /\/\.$/.test(path) || path === '.';
  const { components, node } = fs.resolve(path, contents || path.endsWith('/'));
  if (!node) throw new EngineError('not_found', `Could not find the file ${path} in container ${containerId}`);
  const name = contents ? '.' : components.length === 0 ? '/' : components.at(-1)!;
  return packStream(walk(fs, components, name));
}

/** The whole root without its volumes (an export): entries relative to `/`, no entry for `/` itself. */
export function exportOf(root: DirNode): Readable {
  const fs = new ContainerFs(root, []);
  function* all(): Generator<[string, FsNode]> {
    for (const child of [...root.entries.keys()].sort()) yield* walk(fs, [child], child);
  }
  return packStream(all());
}

const nodeFromHeader = (h: Header, data: Buffer): FsNode | null => {
  const meta = { mode: (h.mode ?? 0o644) & 0o7777, mtime: h.mtime ?? new Date() };
  switch (h.type) {
    case 'file':
    case 'contiguous-file':
    case undefined:
      return { ...meta, kind: 'file', data };
    case 'directory':
      return { ...meta, kind: 'directory', entries: new Map() };
    case 'symlink':
      return { ...meta, kind: 'symlink', mode: 0o777, target: h.linkname ?? '' };
    case 'character-device':
    case 'block-device':
    case 'fifo':
      return { ...meta, kind: 'other', device: h.type };
    default:
      return null;
  }
};

const tarFailure = (message: string) =>
  new EngineError('failed', `Error processing tar file(exit status 1): ${message}`);

/**
 * Writes one tar entry under the extraction directory `base`, with the
 * engine's rules: missing parents are made (0755), a directory entry over a
 * directory keeps its contents, and a directory is never replaced by a
 * non-directory nor the reverse.
 */
function writeEntry(fs: ContainerFs, base: string[], dirPath: string, h: Header, data: Buffer): void {
  const relative = posix.normalize(h.name.replace(/^\/+/, '')).replace(/\/+$/, '');
  if (relative === '..' || relative.startsWith('../')) throw tarFailure(`"${h.name}" is outside of "${dirPath}"`);
  const parts = splitPath(relative);
  if (parts.length === 0) {
    if (h.type === 'directory') fs.dirAt(base)!.mode = (h.mode ?? 0o755) & 0o7777;
    return;
  }
  const parentPath = joinPath([...base, ...parts.slice(0, -1)]);
  const parent = fs.resolve(parentPath, true);
  const parentDir = parent.node ? fs.dirAt(parent.components) : fs.mkdirs(parent.components);
  if (!parentDir) throw tarFailure(`not a directory: ${parentPath}`);
  const target = [...parent.components, parts.at(-1)!];
  let node: FsNode | null;
  if (h.type === 'link') {
    const linked = fs.resolve(joinPath([...base, ...splitPath(h.linkname ?? '')]), false).node;
    if (!linked) throw tarFailure(`hard link target "${h.linkname}" does not exist`);
    node = linked;
  } else node = nodeFromHeader(h, data);
  if (!node) throw tarFailure(`unhandled tar header type for "${h.name}"`);
  if (node.kind === 'symlink' && !node.target.startsWith('/')) {
    const joined = posix.normalize(posix.join(posix.dirname(relative), node.target));
    if (joined === '..' || joined.startsWith('../'))
      throw tarFailure(`invalid symlink "${h.name}" -> "${node.target}"`);
  }
  const existing = fs.nodeAt(target);
  const full = joinPath(target);
  if (existing?.kind === 'directory' && node.kind !== 'directory')
    throw new EngineError('invalid', `cannot overwrite directory "${full}" with non-directory "${dirPath}"`);
  if (existing && existing.kind !== 'directory' && node.kind === 'directory')
    throw new EngineError('invalid', `cannot overwrite non-directory "${full}" with directory "${dirPath}"`);
  if (existing?.kind === 'directory' && node.kind === 'directory') {
    existing.mode = node.mode;
    existing.mtime = node.mtime;
    return;
  }
  fs.put(target, node);
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}

/** Reads a tar stream entry by entry into `fs` at `base`; entries are written in place as they come. */
async function extract(fs: ContainerFs, base: string[], dirPath: string, source: Readable): Promise<void> {
  const extractor = tar.extract();
  let failed = false;
  // The source is read to its end whatever happens, as the engine reads a request's body.
  const feeding = (async () => {
    for await (const chunk of source) {
      if (failed) continue;
      if (!extractor.write(chunk as Buffer))
        await new Promise<void>((resolve) => extractor.once('drain', () => resolve()));
    }
    if (!failed) (extractor as unknown as NodeJS.WritableStream).end();
  })().catch((err: Error) => extractor.destroy(err));
  try {
    for await (const entry of extractor) writeEntry(fs, base, dirPath, entry.header, await readAll(entry));
  } catch (err) {
    failed = true;
    extractor.destroy();
    if (err instanceof EngineError) throw err;
    throw tarFailure((err as Error).message);
  } finally {
    await feeding;
  }
}

/** Reads a stream to its end, keeping nothing (as the engine reads a whole request before answering). */
async function drain(source: Readable): Promise<void> {
  for await (const chunk of source) void chunk;
}

/** putArchive: extracts into an existing directory of the container (through symlinks and mounts). */
export async function extractInto(fs: ContainerFs, dirPath: string, source: Readable, containerId: string) {
  const { components, node } = fs.resolve(dirPath, true);
  const refusal = !node
    ? `Could not find the file ${dirPath} in container ${containerId}`
    : node.kind !== 'directory'
      ? 'extraction point is not a directory'
      : fs.readOnly(components)
        ? 'mounted volume is marked read-only'
        : null;
  if (refusal) {
    await drain(source).catch(() => undefined);
    throw new EngineError('failed', refusal);
  }
  await extract(fs, components, dirPath, source);
}

/** importImage: a new root from a root filesystem tar. */
export async function rootFromTar(source: Readable): Promise<DirNode> {
  const root = dir();
  try {
    await extract(new ContainerFs(root, []), [], '/', source);
  } catch (err) {
    throw new EngineError('invalid', `not a readable tar archive: ${(err as Error).message}`);
  }
  return root;
}
