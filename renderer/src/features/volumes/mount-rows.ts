import type { DataMount } from '../../../../shared/schemas/box';

export interface MountRow {
  name: string | null;
  path: string;
  read_only: boolean;
}

/** The problem with a mount path as you type, or null (the core checks the same and more). */
export function mountPathError(path: string): string | null {
  if (!path.startsWith('/')) return 'An absolute path, e.g. /data';
  if (/^\/+$/.test(path)) return 'Not / itself: a volume cannot replace the root';
  if (/^\/(proc|sys|dev)(\/|$)/.test(path)) return 'Not under /proc, /sys or /dev';
  if (path.split('/').includes('..')) return 'No ".." in the path';
  return null;
}

/** The first problem with the rows, or null: each needs a volume and a good path, and no path twice. */
export function mountsError(rows: MountRow[]): string | null {
  const paths = new Set<string>();
  const names = new Set<string>();
  for (const [i, r] of rows.entries()) {
    if (!r.name) return `Mount ${i + 1}: pick a volume`;
    if (names.has(r.name)) return `Volume ${r.name} is mounted twice`;
    names.add(r.name);
    const bad = mountPathError(r.path);
    if (bad) return `Mount ${i + 1}: ${bad}`;
    if (paths.has(r.path)) return `${r.path} is used twice`;
    paths.add(r.path);
  }
  return null;
}

export function rowsToMounts(rows: MountRow[]): DataMount[] {
  return rows.map((r) => ({ name: r.name!, path: r.path, ...(r.read_only ? { read_only: true } : {}) }));
}
