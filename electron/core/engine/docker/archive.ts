import type Docker from 'dockerode';
import type { IncomingMessage } from 'node:http';
import path from 'node:path/posix';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { byPath, EngineError, type PathChange, type PathStat, type PathType } from '../container-engine';
import { call, toEngineError } from './errors';
import { isPodman } from './flavor';
import { copierFailure } from './podman-answers';
import { podmanRemove, podmanRename } from './podman-paths';

// Go's os.FileMode type bits, as the engine reports them.
const GO_MODE_DIR = 1 << 31;
const GO_MODE_SYMLINK = 1 << 27;
const GO_MODE_SETUID = 1 << 23;
const GO_MODE_SETGID = 1 << 22;
const GO_MODE_STICKY = 1 << 20;
const GO_MODE_OTHER = (1 << 26) | (1 << 25) | (1 << 24) | (1 << 21) | (1 << 19); // device, pipe, socket, char device, irregular

/** Splits a Go FileMode into a path type and Unix permission bits. */
export function fromGoFileMode(goMode: number): { type: PathType; mode: number } {
  const m = goMode >>> 0;
  const type: PathType =
    m & GO_MODE_DIR ? 'directory' : m & GO_MODE_SYMLINK ? 'symlink' : m & GO_MODE_OTHER ? 'other' : 'file';
  const mode =
    (m & 0o777) |
    (m & GO_MODE_SETUID ? 0o4000 : 0) |
    (m & GO_MODE_SETGID ? 0o2000 : 0) |
    (m & GO_MODE_STICKY ? 0o1000 : 0);
  return { type, mode };
}

export async function getArchive(docker: Docker, containerId: string, path: string): Promise<Readable> {
  // Podman's archive of a symlink is its target's content: the link itself is made from its stat.
  if (await isPodman(docker)) {
    const stat = await statPath(docker, containerId, path);
    if (stat?.type === 'symlink') return symlinkArchive(stat, path);
  }
  return call(() => docker.getContainer(containerId).getArchive({ path }) as Promise<Readable>);
}

/** A one-entry archive of the symlink `stat` describes, as Docker's archive of a symlink is. */
function symlinkArchive(stat: PathStat, linkPath: string): Readable {
  const pack = tar.pack();
  const mtime = new Date(stat.mtime);
  const name = path.basename(linkPath);
  pack.entry({ name, type: 'symlink', linkname: stat.linkTarget ?? '', mode: stat.mode, mtime });
  pack.finalize();
  return pack as unknown as Readable; // tar-stream's typings predate Readable's newer members
}

/**
 * Podman's archive extractor writes through a read-only volume mount (Docker refuses): a target
 * directory at or under one is refused here, in Docker's words. Entries of an archive put above
 * such a mount that reach into it are not looked at.
 */
async function refuseReadOnlyMount(docker: Docker, containerId: string, dirPath: string): Promise<void> {
  const info = await call(() => docker.getContainer(containerId).inspect());
  const target = path.normalize(dirPath);
  const readOnly = (info.Mounts ?? []).find(
    (m) => !m.RW && (target === m.Destination || target.startsWith(`${m.Destination.replace(/\/$/, '')}/`)),
  );
  if (readOnly) throw filesystemRefusal('read-only file system')!;
}

/**
 * A write the box's own filesystem refuses, by the engine's message: a mount point cannot be
 * unlinked (EBUSY), a read-only mount cannot be written. The box's state, not an engine failure.
 */
function filesystemRefusal(message: string): EngineError | null {
  if (/device or resource busy/i.test(message))
    return new EngineError(
      'conflict',
      'it is a mount point: the engine mounts a file there (as it does /etc/hostname, /etc/hosts and /etc/resolv.conf) or a volume is mounted there',
    );
  if (/marked read-only|read-only file system/i.test(message))
    return new EngineError('conflict', 'it is on a read-only mount (a volume attached read_only)');
  return null;
}

export async function putArchive(
  docker: Docker,
  containerId: string,
  dirPath: string,
  archive: Readable,
): Promise<void> {
  if (await isPodman(docker)) await refuseReadOnlyMount(docker, containerId, dirPath);
  // Podman's extractor can fail before it reads the upload; Podman then says only that the pipe
  // broke. A target that is not a directory is the usual reason: said so, as its other answer does.
  const brokenCopier = async (message: string) => {
    if (!/passing bulk input to subprocess.*broken pipe/i.test(message)) return null;
    const target = await statPath(docker, containerId, dirPath).catch(() => undefined);
    return target && target.type !== 'directory'
      ? new EngineError('failed', `"${dirPath}" is not a directory: an archive is put into a directory`)
      : null;
  };
  // noOverwriteDirNonDir: an entry never silently replaces a directory with a file (the engine's default would rm -rf it).
  const res = (await call(async () => {
    try {
      return await docker.getContainer(containerId).putArchive(archive, { path: dirPath, noOverwriteDirNonDir: true });
    } catch (err) {
      const message = toEngineError(err).message;
      if (/cannot overwrite (non-)?directory/i.test(message))
        throw new EngineError('invalid', message.replace(/^.*?(cannot overwrite)/i, '$1'));
      throw filesystemRefusal(message) ?? copierFailure(message) ?? (await brokenCopier(message)) ?? err;
    }
  })) as unknown;
  // dockerode answers with the response stream; drain it so the request completes.
  if (res && typeof (res as Readable).resume === 'function') (res as Readable).resume();
}

/** The extractor's refusal of the unknown entry type: Docker's words, then Podman's. */
const TYPE_REFUSED = /unhandled tar header type|unrecognized typeflag/i;

/** A byte that no tar format defines as an entry type. */
const UNKNOWN_TYPEFLAG = 'Z'.charCodeAt(0);

/**
 * A one-entry tar naming `name` with an entry type no tar defines. The engine's extractor removes
 * whatever is at an entry's path before creating the entry, then refuses the unknown type: the net
 * effect is a recursive delete, resolved inside the container's root like every archive call, and
 * it works on stopped containers, where there is no process to run `rm`.
 */
async function removalArchive(name: string, before?: (pack: tar.Pack) => void): Promise<Buffer> {
  const pack = tar.pack();
  before?.(pack);
  pack.entry({ name, size: 0, type: 'file', mode: 0o600 }, '');
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  const buf = Buffer.concat(chunks);
  // The entry's own header is the block before the two-block trailer (a long name adds a PAX header before it).
  const header = buf.subarray(buf.length - 1536, buf.length - 1024);
  header[156] = UNKNOWN_TYPEFLAG;
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return buf;
}

export async function removePath(docker: Docker, containerId: string, target: string): Promise<void> {
  const dir = path.dirname(target);
  const name = path.basename(target);
  if (!name || dir === target) throw new EngineError('invalid', `cannot remove "${target}"`);
  if (await isPodman(docker)) return podmanRemove(docker, containerId, target);
  try {
    await docker.getContainer(containerId).putArchive(Readable.from(await removalArchive(name)), { path: dir });
  } catch (err) {
    const e = toEngineError(err);
    if (!TYPE_REFUSED.test(e.message)) throw filesystemRefusal(e.message) ?? e;
  }
  if (await statPath(docker, containerId, target))
    throw new EngineError('failed', `the engine did not remove "${target}"`);
}

/**
 * One archive call: a hard link `to` → `from` (the extractor first removes what was at `to`),
 * then the removal entry for `from`. The extractor stops at the first failing entry, so its
 * refusal of the removal entry's type means the link was made and `from` removed.
 */
export async function renamePath(
  docker: Docker,
  containerId: string,
  from: string,
  to: string,
  mode: number,
): Promise<void> {
  const dir = path.dirname(from);
  if (path.dirname(to) !== dir || !path.basename(from) || !path.basename(to))
    throw new EngineError('invalid', `cannot rename "${from}" to "${to}": not two names in one directory`);
  if (await isPodman(docker)) return podmanRename(docker, containerId, from, to);
  const archive = await removalArchive(path.basename(from), (pack) =>
    // The engine applies a link entry's mode to the file it links: it must be the file's own.
    pack.entry({ name: path.basename(to), type: 'link', linkname: path.basename(from), mode }),
  );
  // The engine runs one archive call per container at a time; should two renames onto `to` ever
  // overlap, the loser finds the winner's link there ("file exists") and goes again: the last wins.
  for (let attempt = 0; ; attempt++) {
    try {
      await docker
        .getContainer(containerId)
        .putArchive(Readable.from(archive), { path: dir, noOverwriteDirNonDir: true });
    } catch (err) {
      const e = toEngineError(err);
      if (TYPE_REFUSED.test(e.message)) return;
      if (/file exists/i.test(e.message) && attempt < 3) continue;
      if (/cannot overwrite (non-)?directory/i.test(e.message))
        throw new EngineError('invalid', e.message.replace(/^.*?(cannot overwrite)/i, '$1'));
      throw filesystemRefusal(e.message) ?? e;
    }
    throw new EngineError('failed', `the engine did not rename "${from}" to "${to}"`);
  }
}

/** The engine's words for a path whose symlinks never end (the kernel's ELOOP). */
const SYMLINK_LOOP = /too many (levels of symbolic )?links|ELOOP/i;

/**
 * A HEAD answer has no body, so a failed stat has no reason: the same path asked with GET gives
 * the engine's message. A symlink loop is said the same on every engine (the in-memory one too).
 */
async function whyStatFailed(docker: Docker, containerId: string, path: string, failed: EngineError) {
  try {
    const stream = await getArchive(docker, containerId, path);
    stream.destroy();
    return failed;
  } catch (err) {
    const e = toEngineError(err);
    return SYMLINK_LOOP.test(e.message) ? new EngineError('failed', `too many levels of symbolic links: ${path}`) : e;
  }
}

export async function statPath(docker: Docker, containerId: string, path: string): Promise<PathStat | null> {
  let res: IncomingMessage;
  try {
    res = (await docker.getContainer(containerId).infoArchive({ path })) as IncomingMessage;
  } catch (err) {
    const e = toEngineError(err);
    if (e.kind === 'failed') throw await whyStatFailed(docker, containerId, path, e);
    if (e.kind !== 'not_found') throw e;
    // HEAD answers 404 with no body for a missing container and a missing path alike.
    await call(() => docker.getContainer(containerId).inspect());
    return null;
  }
  res.resume();
  const header = res.headers['x-docker-container-path-stat'];
  if (typeof header !== 'string') throw new EngineError('failed', `the engine gave no path information for "${path}"`);
  const raw = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
    name: string;
    size: number;
    mode: number;
    mtime: string;
    linkTarget: string;
  };
  const { type, mode } = fromGoFileMode(raw.mode);
  return {
    // Podman names the root `.`.
    name: path === '/' && raw.name === '.' ? '/' : raw.name,
    size: raw.size,
    type,
    mode,
    mtime: new Date(raw.mtime).toISOString(),
    // Podman fills linkTarget with the path itself for what is not a link.
    linkTarget: type === 'symlink' ? raw.linkTarget || null : null,
  };
}

const CHANGE_KINDS: PathChange['kind'][] = ['changed', 'added', 'deleted'];

export async function containerChanges(docker: Docker, containerId: string): Promise<PathChange[]> {
  const list = (await call(() => docker.getContainer(containerId).changes())) as unknown;
  // An unchanged container's answer is `null`, which dockerode hands up as a Buffer of its bytes.
  if (!Array.isArray(list)) return [];
  // The engine lists them in no fixed order: in path order, the same answer every time.
  return (list as { Path: string; Kind: number }[])
    .map((c) => ({ path: c.Path, kind: CHANGE_KINDS[c.Kind] ?? 'changed' }))
    .sort(byPath);
}
