import type Docker from 'dockerode';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { EngineError, type PathChange, type PathStat, type PathType } from '../container-engine';
import { call, toEngineError } from './errors';

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
  const type: PathType = m & GO_MODE_DIR ? 'directory' : m & GO_MODE_SYMLINK ? 'symlink' : m & GO_MODE_OTHER ? 'other' : 'file';
  const mode = (m & 0o777) | (m & GO_MODE_SETUID ? 0o4000 : 0) | (m & GO_MODE_SETGID ? 0o2000 : 0) | (m & GO_MODE_STICKY ? 0o1000 : 0);
  return { type, mode };
}

export async function getArchive(docker: Docker, containerId: string, path: string): Promise<Readable> {
  return call(() => docker.getContainer(containerId).getArchive({ path }) as Promise<Readable>);
}

export async function putArchive(docker: Docker, containerId: string, dirPath: string, tar: Readable): Promise<void> {
  const res = (await call(() => docker.getContainer(containerId).putArchive(tar, { path: dirPath }))) as unknown;
  // dockerode answers with the response stream; drain it so the request completes.
  if (res && typeof (res as Readable).resume === 'function') (res as Readable).resume();
}

export async function statPath(docker: Docker, containerId: string, path: string): Promise<PathStat | null> {
  let res: IncomingMessage;
  try {
    res = (await docker.getContainer(containerId).infoArchive({ path })) as IncomingMessage;
  } catch (err) {
    const e = toEngineError(err);
    if (e.kind !== 'not_found') throw e;
    // HEAD answers 404 with no body for a missing container and a missing path alike.
    await call(() => docker.getContainer(containerId).inspect());
    return null;
  }
  res.resume();
  const header = res.headers['x-docker-container-path-stat'];
  if (typeof header !== 'string') throw new EngineError('failed', `the engine gave no path information for "${path}"`);
  const raw = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { name: string; size: number; mode: number; mtime: string; linkTarget: string };
  const { type, mode } = fromGoFileMode(raw.mode);
  return { name: raw.name, size: raw.size, type, mode, mtime: new Date(raw.mtime).toISOString(), linkTarget: raw.linkTarget || null };
}

const CHANGE_KINDS: PathChange['kind'][] = ['changed', 'added', 'deleted'];

export async function containerChanges(docker: Docker, containerId: string): Promise<PathChange[]> {
  const list = (await call(() => docker.getContainer(containerId).changes())) as { Path: string; Kind: number }[] | null;
  return (list ?? []).map((c) => ({ path: c.Path, kind: CHANGE_KINDS[c.Kind] ?? 'changed' }));
}
