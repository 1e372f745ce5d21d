import ignore, { type Ignore } from 'ignore';
import { TAR_END_LENGTH, tarHeader, tarPadding } from '../../../../shared/tar-writer';

/** A file of the chosen folder, at its path in the folder (without the folder's own name). */
export interface FolderFile {
  path: string;
  file: File;
}

/** The folder as `box up` sends it: its name, its files, and how many its ignore files left out. */
export interface ChosenFolder {
  name: string;
  files: FolderFile[];
  leftOut: number;
  bytes: number;
}

const IGNORE_FILES = new Set(['.gitignore', '.boxdeskignore']);

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/**
 * The files the browser's folder picker gave, minus `.git` and what `.gitignore` and
 * `.boxdeskignore` say, in the folder they stand in and below, as `box up` reads them.
 */
export async function chooseFolder(picked: readonly File[]): Promise<ChosenFolder> {
  const all = picked.map((file) => {
    const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath || file.name;
    const parts = relative.split('/');
    return {
      top: parts.length > 1 ? parts[0]! : '',
      path: parts.length > 1 ? parts.slice(1).join('/') : relative,
      file,
    };
  });
  const rules = new Map<string, Ignore>();
  for (const f of all) {
    const base = f.path.slice(f.path.lastIndexOf('/') + 1);
    if (!IGNORE_FILES.has(base)) continue;
    const dir = dirOf(f.path);
    const ig = rules.get(dir) ?? ignore();
    ig.add(await f.file.text());
    rules.set(dir, ig);
  }
  const ignored = (path: string) => {
    if (path.split('/').includes('.git')) return true;
    for (const [dir, ig] of rules) {
      if (dir && !path.startsWith(`${dir}/`)) continue;
      const rel = dir ? path.slice(dir.length + 1) : path;
      const parts = rel.split('/');
      // A folder left out takes everything in it.
      for (let i = 1; i <= parts.length; i++) {
        const prefix = parts.slice(0, i).join('/');
        if (ig.ignores(i < parts.length ? `${prefix}/` : prefix)) return true;
      }
    }
    return false;
  };
  const files = all.filter((f) => !ignored(f.path)).map(({ path, file }) => ({ path, file }));
  return {
    name: all[0]?.top ?? '',
    files,
    leftOut: all.length - files.length,
    bytes: files.reduce((n, f) => n + f.file.size, 0),
  };
}

/**
 * The folder as a tar Blob: headers and padding made here, each file's content the File itself,
 * so the browser reads it from disk as it sends; nothing is read whole into memory.
 */
export function folderTar(files: readonly FolderFile[]): Blob {
  const parts: BlobPart[] = [];
  for (const { path, file } of files) {
    parts.push(tarHeader(path, file.size) as Uint8Array<ArrayBuffer>, file);
    parts.push(tarPadding(file.size) as Uint8Array<ArrayBuffer>);
  }
  parts.push(new Uint8Array(TAR_END_LENGTH));
  return new Blob(parts, { type: 'application/x-tar' });
}
