import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import dockerignore from '@balena/dockerignore';
import tar, { type Header as Headers } from 'tar-stream';
import { ARCHIVE_POLICIES } from '../archives/archive-policy';
import { checkedArchive } from '../archives/checked-tar';
import type { FolderFiles } from './devcontainer';

/** Files whose text the plan reads (devcontainer.json, a context's .dockerignore); read whole, so bounded. */
const readable = (name: string) =>
  name === '.devcontainer/devcontainer.json' || name === '.devcontainer.json' || /(^|\/)\.dockerignore$/.test(name);
const READ_LIMIT = 1024 * 1024;

/** A project folder as uploaded: checked and spooled to a file of the core's, with each file's digest. */
export interface UploadedFolder extends FolderFiles {
  /** The checked tar (the core's own). */
  readonly file: string;
  /** Regular files by path (relative, `/`): their sha256, for what changed since the last up. */
  readonly digests: Map<string, string>;
  /** Removes the spooled tar. */
  remove(): void;
}

/**
 * Reads the upload (a tar or gzip tar) to its end under the project-folder policy before anything
 * is made: past `limit` (the bytes it unpacks to) 413, not a tar 400, and nothing is kept.
 */
export async function spoolFolder(body: Readable, file: string, limit: number): Promise<UploadedFolder> {
  const { tar: checked, done } = checkedArchive(body, {
    policy: ARCHIVE_POLICIES.projectFolder,
    limit,
    limitName: '--upload-limit',
  });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const remove = () => fs.rmSync(file, { force: true });
  try {
    await Promise.all([pipeline(checked, fs.createWriteStream(file)), done]);
    const { digests, texts } = await indexTar(file);
    return {
      file,
      digests,
      remove,
      has: (name) => digests.has(name),
      read: (name) => texts.get(name) ?? '',
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/** Every regular file's sha256, and the text of the files the plan reads. */
async function indexTar(file: string): Promise<{ digests: Map<string, string>; texts: Map<string, string> }> {
  const digests = new Map<string, string>();
  const texts = new Map<string, string>();
  const extract = tar.extract();
  const reading = pipeline(fs.createReadStream(file), extract);
  for await (const entry of extract) {
    const name = entryName(entry.header);
    const hash = createHash('sha256');
    const keep = entry.header.type === 'file' && readable(name) && (entry.header.size ?? 0) <= READ_LIMIT;
    const chunks: Buffer[] = [];
    for await (const chunk of entry as AsyncIterable<Buffer>) {
      hash.update(chunk);
      if (keep) chunks.push(chunk);
    }
    if (entry.header.type !== 'file') continue;
    digests.set(name, hash.digest('hex'));
    if (keep) texts.set(name, Buffer.concat(chunks).toString('utf8'));
  }
  await reading;
  return { digests, texts };
}

function entryName(header: Headers): string {
  return header.name.replace(/^\.\//, '').replace(/\/$/, '');
}

/**
 * A tar of some of the upload's entries, streamed from the spooled file: `rename` answers an
 * entry's name in the new tar, or null to leave it out; `extra` adds entries of the upload under
 * names of their own (a Dockerfile outside a build context).
 */
export function subTar(
  folder: UploadedFolder,
  rename: (name: string) => string | null,
  extra: { from: string; name: string }[] = [],
): Readable {
  const pack = tar.pack();
  void (async () => {
    const extract = tar.extract();
    const reading = pipeline(fs.createReadStream(folder.file), extract);
    const held: { name: string; content: Buffer; header: Headers }[] = [];
    for await (const entry of extract) {
      const name = entryName(entry.header);
      const wanted = name === '' ? null : rename(name);
      const copies = extra.filter((e) => e.from === name && entry.header.type === 'file');
      if (copies.length) {
        const chunks: Buffer[] = [];
        for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
        const content = Buffer.concat(chunks);
        for (const c of copies) held.push({ name: c.name, content, header: entry.header });
        if (wanted !== null) await put(pack, { ...entry.header, name: wanted }, content);
        continue;
      }
      if (wanted === null) {
        entry.resume();
        await new Promise<void>((r) => entry.on('end', () => r()));
        continue;
      }
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry({ ...entry.header, name: wanted }, (err) => (err ? reject(err) : resolve()));
        entry.pipe(sink as unknown as NodeJS.WritableStream);
      });
    }
    await reading;
    for (const h of held) await put(pack, { ...h.header, name: h.name }, h.content);
    pack.finalize();
  })().catch((err: unknown) => pack.destroy(err as Error));
  return pack as unknown as Readable;
}

function put(pack: tar.Pack, header: Headers, content: Buffer): Promise<void> {
  return new Promise((resolve, reject) =>
    pack.entry({ ...header, size: content.length }, content, (err) => (err ? reject(err) : resolve())),
  );
}

/**
 * The build context a devcontainer.json or a root Dockerfile names, as a tar: the entries under
 * `context` (without the `.dockerignore`d ones, read as Docker reads it), and the Dockerfile;
 * one outside the context (or ignored in it) goes in under a name of its own.
 */
export function buildContextTar(
  folder: UploadedFolder,
  context: string,
  dockerfile: string,
): { tar: () => Readable; dockerfile: string } {
  const prefix = context ? `${context}/` : '';
  const ignoreFile = `${prefix}.dockerignore`;
  const ig = folder.has(ignoreFile) ? dockerignore().add(folder.read(ignoreFile)) : null;
  const within = (name: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : null);
  const rename = (name: string) => {
    const rel = within(name);
    return rel === null || rel === '' || ig?.ignores(rel) ? null : rel;
  };
  const rel = within(dockerfile);
  if (rel !== null && rename(dockerfile) !== null) return { tar: () => subTar(folder, rename), dockerfile: rel };
  const name = '.boxdesk.Dockerfile';
  return { tar: () => subTar(folder, rename, [{ from: dockerfile, name }]), dockerfile: name };
}
