import posix from 'node:path/posix';
import { EngineError, type PathChange, type PathStat } from '../container-engine';

/**
 * The memory engine's filesystem: a tree of nodes. Files, symlinks and other
 * nodes never change once made (a write puts a new node in place), so a
 * container's root starts as a copy of its image's directories sharing every
 * leaf, and "changed" is "not the image's node" — as an overlay copy-up is.
 */
export type FsNode = FileNode | DirNode | LinkNode | OtherNode;

interface NodeMeta {
  /** Permission bits, with setuid/setgid/sticky. */
  mode: number;
  mtime: Date;
}

export interface FileNode extends NodeMeta {
  kind: 'file';
  data: Buffer;
}

export interface DirNode extends NodeMeta {
  kind: 'directory';
  entries: Map<string, FsNode>;
}

export interface LinkNode extends NodeMeta {
  kind: 'symlink';
  target: string;
}

/** A device or a fifo: it exists and can be listed, nothing more. */
export interface OtherNode extends NodeMeta {
  kind: 'other';
  device: 'character-device' | 'block-device' | 'fifo';
}

export const dir = (mode = 0o755, mtime = new Date()): DirNode => ({
  kind: 'directory',
  mode,
  mtime,
  entries: new Map(),
});
export const file = (data: Buffer | string, mode = 0o644, mtime = new Date()): FileNode => ({
  kind: 'file',
  data: Buffer.isBuffer(data) ? data : Buffer.from(data),
  mode,
  mtime,
});
export const symlink = (target: string, mtime = new Date()): LinkNode => ({
  kind: 'symlink',
  target,
  mode: 0o777,
  mtime,
});

/** A copy of the directories of a tree; leaves are shared (they never change). */
export function cloneTree(node: DirNode): DirNode {
  const copy: DirNode = { kind: 'directory', mode: node.mode, mtime: node.mtime, entries: new Map() };
  for (const [name, child] of node.entries)
    copy.entries.set(name, child.kind === 'directory' ? cloneTree(child) : child);
  return copy;
}

/** Bytes of file content in a tree. */
export function treeBytes(node: FsNode): number {
  if (node.kind === 'file') return node.data.length;
  if (node.kind !== 'directory') return 0;
  let n = 0;
  for (const child of node.entries.values()) n += treeBytes(child);
  return n;
}

export function splitPath(p: string): string[] {
  return p.split('/').filter((c) => c !== '' && c !== '.');
}

export const joinPath = (components: string[]): string => '/' + components.join('/');

/** A named volume mounted over a path of a container's root. */
export interface FsMount {
  path: string;
  root: DirNode;
  readOnly: boolean;
}

const MAX_SYMLINK_HOPS = 40;

export interface Resolved {
  /** The canonical path, symlinks resolved as asked. */
  components: string[];
  node: FsNode | undefined;
}

/**
 * A container's view of its files: its root with volumes mounted over it.
 * Every path resolves inside the root (`..` stops at `/`, absolute symlink
 * targets start again at the root), as the engine resolves archive paths.
 */
export class ContainerFs {
  constructor(
    readonly root: DirNode,
    readonly mounts: FsMount[],
  ) {}

  /** The mount a canonical path is at or under, deepest first. */
  mountOf(components: string[]): FsMount | undefined {
    const p = joinPath(components);
    let best: FsMount | undefined;
    for (const m of this.mounts)
      if ((p === m.path || p.startsWith(m.path + '/')) && (!best || m.path.length > best.path.length)) best = m;
    return best;
  }

  /** The node at a canonical path, without following symlinks. */
  nodeAt(components: string[]): FsNode | undefined {
    let node: FsNode = this.mountAt([]) ?? this.root;
    for (let i = 0; i < components.length; i++) {
      if (node.kind !== 'directory') return undefined;
      const mounted = this.mountAt(components.slice(0, i + 1));
      const next: FsNode | undefined = mounted ?? node.entries.get(components[i]!);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  private mountAt(components: string[]): DirNode | undefined {
    const p = joinPath(components);
    return this.mounts.find((m) => m.path === p)?.root;
  }

  /** Resolves `path` (relative paths from `cwd`); symlinks on the way are followed, the last one only when asked. */
  resolve(path: string, followLast: boolean, cwd = '/'): Resolved {
    const pending = splitPath(path.startsWith('/') ? path : posix.join(cwd, path));
    const out: string[] = [];
    let hops = 0;
    while (pending.length) {
      const c = pending.shift()!;
      if (c === '..') {
        out.pop();
        continue;
      }
      const node = this.nodeAt([...out, c]);
      const last = pending.length === 0;
      if (node?.kind === 'symlink' && (!last || followLast)) {
        if (++hops > MAX_SYMLINK_HOPS) throw new EngineError('failed', `too many levels of symbolic links: ${path}`);
        if (node.target.startsWith('/')) out.length = 0;
        pending.unshift(...node.target.split('/').filter((t) => t !== '' && t !== '.'));
        continue;
      }
      out.push(c);
      if (!last && node?.kind !== 'directory') return { components: [...out, ...pending], node: undefined };
    }
    return { components: out, node: this.nodeAt(out) };
  }

  /** The directory at a canonical path, or undefined. */
  dirAt(components: string[]): DirNode | undefined {
    const node = this.nodeAt(components);
    return node?.kind === 'directory' ? node : undefined;
  }

  readOnly(components: string[]): boolean {
    return this.mountOf(components)?.readOnly ?? false;
  }

  /** Puts `node` at the canonical path (its parent must exist); refuses a read-only mount. */
  put(components: string[], node: FsNode): void {
    const parent = this.dirAt(components.slice(0, -1));
    if (!parent) throw new EngineError('failed', `no such directory: ${joinPath(components.slice(0, -1))}`);
    if (this.readOnly(components)) throw new EngineError('failed', 'mounted volume is marked read-only');
    parent.entries.set(components.at(-1)!, node);
    parent.mtime = new Date();
  }

  /** Removes the node at a canonical path (a symlink itself); nothing there is not an error. */
  remove(components: string[]): void {
    if (this.mounts.some((m) => m.path === joinPath(components)))
      throw new EngineError('failed', `unlinkat ${joinPath(components)}: device or resource busy`);
    if (this.readOnly(components)) throw new EngineError('failed', 'mounted volume is marked read-only');
    const parent = this.dirAt(components.slice(0, -1));
    if (parent?.entries.delete(components.at(-1)!)) parent.mtime = new Date();
  }

  /** Makes every missing directory of a canonical path (0755, as the engine's extractor does). */
  /** Removes the entry at `path` (not following a last link) as the engine's archive delete does. */
  removePath(path: string, containerId: string): void {
    const parts = splitPath(path);
    if (!parts.length || parts.includes('..')) throw new EngineError('invalid', `cannot remove "${path}"`);
    const parent = this.resolve(joinPath(parts.slice(0, -1)), true);
    if (parent.node?.kind !== 'directory')
      throw new EngineError(
        'failed',
        `Could not find the file ${joinPath(parts.slice(0, -1))} in container ${containerId}`,
      );
    this.remove([...parent.components, parts.at(-1)!]);
  }

  mkdirs(components: string[]): DirNode {
    for (let i = 1; i <= components.length; i++) {
      const at = components.slice(0, i);
      const node = this.nodeAt(at);
      if (!node) this.put(at, dir());
      else if (node.kind !== 'directory') throw new EngineError('failed', `not a directory: ${joinPath(at)}`);
    }
    return this.dirAt(components)!;
  }
}

/** What the engine says about a node (stat of the path itself, not a symlink's target). */
export function statOf(name: string, node: FsNode): PathStat {
  const size =
    node.kind === 'file'
      ? node.data.length
      : node.kind === 'directory'
        ? 4096
        : node.kind === 'symlink'
          ? Buffer.byteLength(node.target)
          : 0;
  return {
    name,
    size,
    type: node.kind,
    mode: node.mode,
    mtime: node.mtime.toISOString(),
    linkTarget: node.kind === 'symlink' ? node.target : null,
  };
}

/**
 * Paths of a container's root that differ from its image, sorted: a new node
 * and everything under it is `added`, a node gone is `deleted` (itself only),
 * a node replaced or a directory with any difference below it is `changed`.
 * Volumes are not part of the root; their mount points are.
 */
export function diffTrees(image: DirNode, root: DirNode): PathChange[] {
  const out: PathChange[] = [];
  const added = (path: string, node: FsNode) => {
    out.push({ path, kind: 'added' });
    if (node.kind === 'directory') for (const [n, c] of node.entries) added(`${path}/${n}`, c);
  };
  const walk = (path: string, before: DirNode, after: DirNode): boolean => {
    let differs = before.mode !== after.mode;
    for (const [name, child] of after.entries) {
      const was = before.entries.get(name);
      const p = `${path}/${name}`;
      if (!was) {
        added(p, child);
        differs = true;
      } else if (was.kind === 'directory' && child.kind === 'directory') {
        const mark = out.length;
        if (walk(p, was, child)) {
          out.splice(mark, 0, { path: p, kind: 'changed' });
          differs = true;
        }
      } else if (was !== child) {
        out.push({ path: p, kind: 'changed' });
        differs = true;
      }
    }
    for (const name of before.entries.keys()) {
      if (after.entries.has(name)) continue;
      out.push({ path: `${path}/${name}`, kind: 'deleted' });
      differs = true;
    }
    return differs;
  };
  walk('', image, root);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
