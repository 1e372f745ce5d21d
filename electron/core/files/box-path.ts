import path from 'node:path/posix';
import { ApiError } from '../../../shared/errors';

/** Longest path the engine's archive calls are asked about (Linux PATH_MAX). */
const MAX_PATH = 4096;

function invalid(field: string, message: string): ApiError {
  return new ApiError('invalid_body', `${field} ${message}`, { errors: [{ path: field, message }] });
}

/**
 * A path inside a box as clients give it: absolute, no "." or ".." segments, no NUL, no backslash,
 * no control characters. Repeated and trailing slashes are dropped. The result never leaves the
 * box because the engine resolves it (symlinks included) inside the container's root; these rules
 * only make a request mean one thing, and refuse ones that look like an escape attempt.
 */
export function parseBoxPath(raw: string, field = 'query.path'): string {
  if (raw.length === 0) throw invalid(field, 'is required: an absolute path inside the box, e.g. /etc/hosts');
  if (raw.length > MAX_PATH) throw invalid(field, `is longer than ${MAX_PATH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw invalid(field, 'contains a NUL or control character');
  if (raw.includes('\\')) throw invalid(field, 'contains a backslash; separate segments with "/"');
  if (!raw.startsWith('/')) throw invalid(field, `must be absolute (start with "/"), got "${raw}"`);
  const segments = raw.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..'))
    throw invalid(field, 'must not contain "." or ".." segments; give the normalised absolute path');
  return `/${segments.join('/')}`;
}

export function parentOf(p: string): string {
  return path.dirname(p);
}

export function baseName(p: string): string {
  return path.basename(p);
}

export function joinBoxPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** Where a symlink at `linkPath` pointing at `target` leads, as a normalised absolute box path. */
export function resolveLink(linkPath: string, target: string): string {
  // Lexical resolution like the kernel's inside a chroot: ".." at the root stays at the root.
  return path.resolve(target.startsWith('/') ? '/' : path.dirname(linkPath), target);
}

/** `p` relative to its ancestor `dir`. */
export function relativeTo(dir: string, p: string): string {
  return path.relative(dir, p);
}

/** Permission bits from a mode query ("644", "0644", "4755"). */
export function parseMode(raw: string | undefined): number {
  return raw === undefined ? 0o644 : parseInt(raw, 8) & 0o7777;
}

export function formatMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/**
 * Trees the box's kernel provides while it runs (procfs, sysfs, device nodes). The files routes
 * write the box's own filesystem, where these are plain directories hidden under the mounts: a
 * file written there would never be seen in the box.
 */
const KERNEL_TREES = ['/proc', '/sys', '/dev'];

/** The kernel tree `p` is in (or is), if any. */
export function kernelTreeOf(p: string): string | null {
  return KERNEL_TREES.find((tree) => p === tree || p.startsWith(`${tree}/`)) ?? null;
}
