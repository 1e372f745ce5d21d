import path from 'node:path/posix';
import { ApiError } from '../../../shared/errors';
import type { DataMount } from '../../../shared/schemas/box';

const RESERVED = ['/proc', '/sys', '/dev'];

/** A mount path as the engine gets it: absolute, normalised, not the root and not in the kernel's trees. */
export function mountPath(raw: string, field: string): string {
  const p = path.normalize(raw).replace(/\/+$/, '');
  const bad = (message: string) =>
    new ApiError('invalid_body', `${field} "${raw}" ${message}`, { errors: [{ path: field, message }] });
  if (!raw.startsWith('/')) throw bad('must be an absolute path');
  if (p === '' || p === '/') throw bad('cannot be / (the box root); pick a directory such as /data');
  if (raw.split('/').includes('..')) throw bad('must not contain ".."');
  if (RESERVED.some((r) => p === r || p.startsWith(`${r}/`))) throw bad('must not be under /proc, /sys or /dev');
  return p;
}

/** A box's mounts, paths normalised; one volume once, one path once, neither inside another. */
export function checkDataMounts(mounts: readonly DataMount[], field = 'body.data_mounts'): DataMount[] {
  const out: DataMount[] = [];
  mounts.forEach((m, i) => {
    const p = mountPath(m.path, `${field}[${i}].path`);
    const clash = out.find(
      (o) => o.name === m.name || o.path === p || o.path.startsWith(`${p}/`) || p.startsWith(`${o.path}/`),
    );
    if (clash) {
      const message =
        clash.name === m.name ? `volume "${m.name}" is mounted twice` : `path ${p} overlaps the mount at ${clash.path}`;
      throw new ApiError('invalid_body', `${field}[${i}]: ${message}`, {
        errors: [{ path: `${field}[${i}]`, message }],
      });
    }
    out.push({ name: m.name, path: p, read_only: m.read_only ?? false });
  });
  return out;
}
