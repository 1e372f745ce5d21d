import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import type { FileChange, FileStat } from '../../../shared/schemas/files';
import type { BoxRow, BoxesPort } from '../boxes/port';
import { EngineError, type ContainerEngine, type PathStat } from '../engine/container-engine';
import { baseName, formatMode, joinBoxPath, kernelTreeOf, parentOf, relativeTo, resolveLink } from './box-path';
import { FileWriter, refusal } from './file-writer';
import { directChildren, firstHeader, holdsEntries, packEntries, repackTree, singleFile } from './tar-entries';
import type { UploadIntentStore } from './upload-intents';

/** Symlinks followed before giving up, as Linux does (ELOOP). */
const MAX_LINKS = 40;
const DIR_MODE = 0o755;

export interface FileServiceDeps {
  engine: ContainerEngine;
  boxes: Pick<BoxesPort, 'find' | 'awake'>;
  intents: UploadIntentStore;
  log: FastifyBaseLogger;
}

function toFileStat(path: string, s: PathStat): FileStat {
  const type = s.type === 'directory' ? 'dir' : s.type;
  return {
    path,
    type,
    size: type === 'dir' ? 0 : s.size,
    mode: formatMode(s.mode),
    mtime: new Date(s.mtime).toISOString(),
    ...(type === 'symlink' ? { link_target: s.linkTarget ?? '' } : {}),
  };
}

/** The box's row names a container the engine no longer has (the reconciler will mark the box). */
const containerGone = (err: EngineError) =>
  new ApiError('conflict', `the box's container is gone (${err.message}); delete the box and create it again`);

/** How the engines word ELOOP (the Docker driver and the in-memory engine alike). */
const SYMLINK_LOOP = /too many levels of symbolic links/i;

/** A path whose symlinks lead back to themselves (or past MAX_LINKS links, which Linux calls a loop too). */
const symlinkLoop = (path: string) =>
  new ApiError(
    'invalid_body',
    `"${path}" is a symbolic link loop: its links lead back to themselves (or through more than ${MAX_LINKS} links) and never reach a file; point the link elsewhere or delete it`,
  );

const notFound = (path: string) => new ApiError('not_found', `"${path}" does not exist in the box`);

/** Refuses to change anything under /proc, /sys or /dev before the engine is asked (it would write where the box never looks). */
function refuseKernelTree(path: string, action: 'write' | 'create' | 'delete'): void {
  const tree = kernelTreeOf(path);
  if (!tree) return;
  const message = `is under ${tree}, which the box's kernel provides while it runs`;
  throw new ApiError(
    'invalid_body',
    `cannot ${action} "${path}": it ${message}; the files routes change the box's own filesystem, where ${tree} is hidden under that mount, so nothing would be seen in the box. Do it from inside the running box (box exec)`,
    { errors: [{ path: 'query.path', message }] },
  );
}

/**
 * Files of a box through the engine's archive calls, so stopped boxes work too. Every path the
 * engine sees is an absolute path it resolves inside the container's root: a symlink to "/" is the
 * box's root, never the host's.
 */
export class FileService {
  private readonly writer: FileWriter;

  constructor(private readonly deps: FileServiceDeps) {
    this.writer = new FileWriter(deps);
  }

  private get engine(): ContainerEngine {
    return this.deps.engine;
  }

  /** The box's container; 409 while the box is mid-transition or has none. */
  private async container(project: string, name: string): Promise<string> {
    return (await this.box(project, name)).container_id!;
  }

  /** The box (used now, woken if paused), with a container; 409 while it is mid-transition or has none. */
  private async box(project: string, name: string): Promise<BoxRow> {
    const row = await this.deps.boxes.awake(project, name, 'files');
    if (!row.container_id)
      throw new ApiError(
        'conflict',
        `box "${name}" has no container (${row.status_reason ?? row.status}); delete it and create it again`,
      );
    return row;
  }

  /** The engine's stat; one it cannot answer (it resolves a symlink's whole chain, and a loop has none) is the client's 400. */
  private async statOf(id: string, path: string): Promise<PathStat | null> {
    try {
      return await this.engine.statPath(id, path);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'not_found') throw containerGone(err);
      if (err instanceof EngineError && err.kind === 'failed' && SYMLINK_LOOP.test(err.message))
        throw symlinkLoop(await this.loopIn(id, path));
      if (err instanceof EngineError && err.kind === 'failed') {
        throw new ApiError(
          'invalid_body',
          `"${path}" cannot be resolved in the box (a symlink through something that is not a directory?)`,
        );
      }
      throw err;
    }
  }

  /** The first of `path` and its ancestors, from the top, that is a symlink loop (a path below one fails the same way). */
  private async loopIn(id: string, path: string): Promise<string> {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const prefix = `/${parts.slice(0, i).join('/')}`;
      try {
        await this.engine.statPath(id, prefix);
      } catch (err) {
        if (err instanceof EngineError && SYMLINK_LOOP.test(err.message)) return prefix;
        break;
      }
    }
    return path;
  }

  /** Follows symlinks (inside the box) to what they lead to; `stat` is null when that does not exist. */
  private async resolve(id: string, path: string): Promise<{ path: string; stat: PathStat | null }> {
    let current = path;
    for (let hops = 0; hops <= MAX_LINKS; hops++) {
      const stat = await this.statOf(id, current);
      if (!stat || stat.type !== 'symlink') return { path: current, stat };
      current = resolveLink(current, stat.linkTarget ?? '');
    }
    throw symlinkLoop(path);
  }

  /** What is at `path` itself (a symlink is reported as one, with its target as stored). */
  async stat(project: string, name: string, path: string): Promise<FileStat> {
    const id = await this.container(project, name);
    const stat = await this.statOf(id, path);
    if (!stat) throw notFound(path);
    return this.describe(id, path, stat);
  }

  /** The engine's stat resolves a symlink's whole chain; the link's own text comes from its archive header. */
  private async describe(id: string, path: string, stat: PathStat): Promise<FileStat> {
    if (stat.type !== 'symlink') return toFileStat(path, stat);
    const header = await firstHeader(await this.engine.getArchive(id, path));
    return toFileStat(path, { ...stat, linkTarget: header?.linkname ?? stat.linkTarget });
  }

  /** A regular file's bytes, streamed (symlinks followed). */
  async read(project: string, name: string, path: string): Promise<{ size: number; stream: Readable }> {
    const id = await this.container(project, name);
    const target = await this.resolve(id, path);
    if (!target.stat) throw notFound(path);
    if (target.stat.type === 'directory')
      throw new ApiError('invalid_body', `"${path}" is a directory; list it with GET .../files/list?path=`);
    if (target.stat.type !== 'file') throw new ApiError('invalid_body', `"${path}" is not a regular file`);
    const direct = await this.engine.readFile?.(id, target.path).catch((err: unknown) => {
      if (!(err instanceof EngineError)) throw err;
      if (err.kind === 'not_found') throw notFound(path);
      if (err.kind === 'invalid') throw new ApiError('invalid_body', `"${path}" is not a regular file`);
      if (err.kind === 'conflict') throw new ApiError('conflict', `cannot read "${path}": ${err.message}`);
      throw err;
    });
    return direct ?? singleFile(await this.engine.getArchive(id, target.path), path);
  }

  /** The direct children of a directory (symlinks to directories followed), sorted by name. */
  async list(project: string, name: string, path: string): Promise<FileStat[]> {
    const id = await this.container(project, name);
    const target = await this.resolve(id, path);
    if (!target.stat) throw notFound(path);
    if (target.stat.type !== 'directory')
      throw new ApiError('invalid_body', `"${path}" is not a directory; stat it with GET .../files/stat?path=`);
    return directChildren(await this.engine.getArchive(id, target.path), path);
  }

  /** A directory's tree as a tar of its regular files and directories, named relative to it (symlinks followed to reach it). */
  async archive(project: string, name: string, path: string): Promise<Readable> {
    const id = await this.container(project, name);
    const target = await this.resolve(id, path);
    if (!target.stat) throw notFound(path);
    if (target.stat.type !== 'directory')
      throw new ApiError('invalid_body', `"${path}" is not a directory; read a file with GET .../files?path=`);
    return repackTree(await this.engine.getArchive(id, target.path));
  }

  /**
   * Writes a regular file from a stream of exactly `size` bytes, creating missing parents (0755).
   * The target is replaced only once every byte is in the box (files/file-writer.ts): a failed or
   * interrupted upload leaves the file as it was.
   */
  async write(
    project: string,
    name: string,
    path: string,
    mode: number,
    size: number,
    body: Readable,
  ): Promise<FileStat> {
    if (path === '/') throw new ApiError('invalid_body', '"/" is a directory');
    refuseKernelTree(path, 'write');
    const box = await this.box(project, name);
    const id = box.container_id!;
    const target = await this.resolve(id, path);
    refuseKernelTree(target.path, 'write');
    if (target.stat?.type === 'directory')
      throw new ApiError('invalid_body', `"${path}" is a directory; give the path of a file inside it`);
    if (target.stat && target.stat.type !== 'file')
      throw new ApiError('invalid_body', `"${path}" is not a regular file; delete it first`);
    const { dir, missing } = await this.existingAncestor(id, parentOf(target.path));
    const final = joinBoxPath(missing.at(-1) ?? dir, baseName(target.path));
    const written = await this.writer.write(
      { box: { id: box.id, project, name, containerId: id }, dir, missing, final, asked: path },
      { mode, size, body },
    );
    return toFileStat(final, written);
  }

  /** Removes the temporary files of uploads a crash cut short (at start, and when the engine comes back). */
  clearInterruptedUploads(): Promise<number> {
    return this.writer.clearInterrupted((intent) => {
      let row: BoxRow;
      try {
        row = this.deps.boxes.find(intent.project, intent.box);
      } catch {
        return null; // the box is gone, and its files with it
      }
      return row.id === intent.box_id ? row.container_id : null;
    });
  }

  /** The nearest existing directory at or above `dir` (symlinks followed), and the directories missing below it, top first. */
  private async existingAncestor(id: string, dir: string): Promise<{ dir: string; missing: string[] }> {
    const missing: string[] = [];
    let current = dir;
    for (;;) {
      const found = await this.resolve(id, current);
      if (found.stat) {
        if (found.stat.type !== 'directory') throw new ApiError('invalid_body', `"${current}" is not a directory`);
        return { dir: found.path, missing: missing.map((p) => joinBoxPath(found.path, relativeTo(current, p))) };
      }
      missing.unshift(current);
      current = parentOf(current);
    }
  }

  /** Creates a directory (0755); with `parents`, its missing parents too and an existing one is fine. */
  async mkdir(
    project: string,
    name: string,
    path: string,
    parents: boolean,
  ): Promise<{ created: boolean; stat: FileStat }> {
    refuseKernelTree(path, 'create');
    const id = await this.container(project, name);
    const existing = await this.statOf(id, path);
    if (existing) {
      const resolved = existing.type === 'symlink' ? (await this.resolve(id, path)).stat : existing;
      if (parents && resolved?.type === 'directory')
        return { created: false, stat: await this.describe(id, path, existing) };
      throw new ApiError('already_exists', `"${path}" already exists in the box`);
    }
    const { dir, missing } = await this.existingAncestor(id, parentOf(path));
    if (missing.length > 0 && !parents)
      throw new ApiError(
        'not_found',
        `the parent directory "${parentOf(path)}" does not exist; pass parents=true to create it`,
      );
    const target = joinBoxPath(missing.at(-1) ?? dir, baseName(path));
    refuseKernelTree(target, 'create');
    const dirs = [...missing, target].map((p) => ({ name: relativeTo(dir, p), mode: DIR_MODE }));
    await this.engine.putArchive(id, dir, packEntries(dirs)).catch((err: unknown) => {
      throw refusal(err, 'create', path);
    });
    const made = await this.statOf(id, path);
    if (!made) throw new ApiError('internal', `the engine reported "${path}" created but it is not there`);
    return { created: true, stat: toFileStat(path, made) };
  }

  /** Removes a file, a symlink (not its target) or an empty directory; a non-empty directory needs `recursive`. */
  async remove(project: string, name: string, path: string, recursive: boolean): Promise<void> {
    if (path === '/')
      throw new ApiError('invalid_body', 'refusing to delete the root of the box; delete the box instead');
    refuseKernelTree(path, 'delete');
    const id = await this.container(project, name);
    const stat = await this.statOf(id, path);
    if (!stat) throw notFound(path);
    if (stat.type === 'directory' && !recursive && (await holdsEntries(await this.engine.getArchive(id, path)))) {
      throw new ApiError(
        'conflict',
        `"${path}" is a directory that is not empty; pass recursive=true to delete it with everything in it`,
      );
    }
    await this.engine.removePath(id, path).catch((err: unknown) => {
      throw refusal(err, 'delete', path);
    });
  }

  /** Paths that differ from the image the box's container was made from (its base, or for a fork the source's copy). */
  async changes(project: string, name: string): Promise<FileChange[]> {
    const changes = await this.engine.containerChanges(await this.container(project, name)).catch((err: unknown) => {
      throw err instanceof EngineError && err.kind === 'not_found' ? containerGone(err) : err;
    });
    return changes
      .map((c) => ({ path: c.path, kind: c.kind }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}
