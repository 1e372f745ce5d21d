/** Paths inside a box: always absolute, `/`-separated, no trailing slash (but `/` itself). */

export function joinPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

export function parentPath(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path === '/' ? '/' : path.slice(path.lastIndexOf('/') + 1);
}

/** The crumbs of a path: `/etc/nginx` → `[/, /etc, /etc/nginx]`. */
export function pathCrumbs(path: string): { path: string; label: string }[] {
  const parts = path.split('/').filter(Boolean);
  return [
    { path: '/', label: '/' },
    ...parts.map((p, i) => ({ path: `/${parts.slice(0, i + 1).join('/')}`, label: p })),
  ];
}

/** Where a symlink in `dir` points, as an absolute path (`..` and `.` resolved). */
export function resolveLink(dir: string, target: string): string {
  const out: string[] = [];
  for (const part of (target.startsWith('/') ? target : `${dir}/${target}`).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** A folder name the user typed: one segment, no slashes, not `.` or `..`. */
export function folderNameProblem(name: string): string | null {
  if (name.trim() === '') return 'Give the folder a name.';
  if (name.includes('/') || name.includes('\\')) return 'One folder at a time: no slashes.';
  if (name === '.' || name === '..') return 'That name means a folder that already exists.';
  if (name.includes('\0')) return 'No NUL characters.';
  return null;
}

/** `0755` → `rwxr-xr-x` (with setuid/setgid/sticky shown the way ls does). */
export function modeString(mode: string): string {
  const bits = parseInt(mode, 8);
  const rwx = (n: number) => `${n & 4 ? 'r' : '-'}${n & 2 ? 'w' : '-'}${n & 1 ? 'x' : '-'}`;
  const s = [rwx((bits >> 6) & 7), rwx((bits >> 3) & 7), rwx(bits & 7)];
  const mark = (i: number, flag: number, ch: string) => {
    if (!(bits & flag)) return;
    s[i] = s[i]!.slice(0, 2) + (s[i]!.endsWith('x') ? ch : ch.toUpperCase());
  };
  mark(0, 0o4000, 's');
  mark(1, 0o2000, 's');
  mark(2, 0o1000, 't');
  return s.join('');
}

/** Text the editor can show: valid UTF-8 with no NUL bytes. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, 8192).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
