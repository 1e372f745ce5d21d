import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import dockerignore from '@balena/dockerignore';
import ignore, { type Ignore } from 'ignore';
import tar from 'tar-stream';

/** A folder's files to send, relative (with `/`), parents before children. */
export interface ProjectFiles {
  dirs: string[];
  files: string[];
  /** Symlinks and other entries that are neither files nor folders: not sent, said. */
  skipped: string[];
}

/** Which rules leave files out: `.gitignore`-like files in every folder, or Docker's `.dockerignore`. */
export type IgnoreRules = { git: readonly string[] } | 'dockerignore';

/**
 * The files of `root` minus what its ignore files say: with `{git: names}`, `.gitignore` rules as
 * git reads them, in the folder they stand in and below (`names` lists which files are read, e.g.
 * `.gitignore` and `.boxdeskignore`); with `'dockerignore'`, the root's `.dockerignore` as Docker
 * reads it (@balena/dockerignore: patterns from the root, no file in subfolders). `.git` itself is
 * never sent.
 */
export function projectFiles(root: string, rules: IgnoreRules): ProjectFiles {
  const out: ProjectFiles = { dirs: [], files: [], skipped: [] };
  const walk = (rel: string, inherited: { base: string; ig: Pick<Ignore, 'ignores'> }[]) => {
    const abs = path.join(root, rel);
    const here = ignore();
    let any = false;
    for (const name of names) {
      const file = path.join(abs, name);
      if (fs.existsSync(file)) {
        here.add(fs.readFileSync(file, 'utf8'));
        any = true;
      }
    }
    const scoped = any ? [...inherited, { base: rel, ig: here }] : inherited;
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name === '.git') continue;
      const dir = entry.isDirectory();
      const ignored = scoped.some(({ base, ig }) => {
        const inside = base ? child.slice(base.length + 1) : child;
        return ig.ignores(dir && !docker ? `${inside}/` : inside);
      });
      if (dir && ignored && exceptions) {
        // Docker looks inside a left-out folder for what a `!` pattern brings back.
        const [dirsBefore, filesBefore] = [out.dirs.length, out.files.length];
        walk(child, scoped);
        if (out.dirs.length > dirsBefore || out.files.length > filesBefore) out.dirs.splice(dirsBefore, 0, child);
        continue;
      }
      if (ignored) continue;
      if (dir) {
        out.dirs.push(child);
        walk(child, scoped);
      } else if (entry.isFile()) out.files.push(child);
      else out.skipped.push(child);
    }
  };
  const docker = rules === 'dockerignore';
  const names = docker ? [] : rules.git;
  const file = path.join(root, '.dockerignore');
  const text = docker && fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  const exceptions = text !== null && /^\s*!/m.test(text);
  walk('', text !== null ? [{ base: '', ig: dockerignore().add(text) }] : []);
  return out;
}

/** A tar of those files (read from disk as the tar is read), named relative to `root`; `extra` adds files from elsewhere under names of their own. */
export function packFiles(root: string, files: ProjectFiles, extra: { name: string; file: string }[] = []): Readable {
  const pack = tar.pack();
  void (async () => {
    try {
      for (const dir of files.dirs) await entry(pack, { name: `${dir}/`, type: 'directory', mode: 0o755 });
      const all = [...files.files.map((f) => ({ name: f, file: path.join(root, f) })), ...extra];
      for (const { name: file, file: abs } of all) {
        const st = fs.statSync(abs);
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ name: file, size: st.size, mode: st.mode & 0o777, mtime: st.mtime }, (err) =>
            err ? reject(err) : resolve(),
          );
          fs.createReadStream(abs)
            .on('error', reject)
            .pipe(sink as unknown as NodeJS.WritableStream);
        });
      }
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
    }
  })();
  return pack as unknown as Readable;
}

function entry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0]): Promise<void> {
  return new Promise((resolve, reject) => pack.entry(header, (err) => (err ? reject(err) : resolve())));
}
