import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../../shared/errors';
import type { FileStat } from '../../shared/schemas/files';
import type { Command } from 'commander';
import type { Context } from '../context';
import { UsageError } from '../options';
import type { Cli } from '../actions';
import { print, printList } from '../print';
import { commandModule } from '../program';
import { transferBar } from '../progress';

/** One side of `box cp`: `NAME:/path` in a box, anything else on this machine. */
type Side = { box: string; path: string } | { local: string };

const BOX_SIDE = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?):(\/.*)$/;

export function parseSide(arg: string): Side {
  const m = BOX_SIDE.exec(arg);
  if (m) return { box: m[1]!, path: m[3]! };
  if (/^[^/.][^/]*:/.test(arg) && !fs.existsSync(arg))
    throw new UsageError(`"${arg}" looks like NAME:PATH but the path is not absolute; write NAME:/path`);
  return { local: arg };
}

const posixJoin = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : `${dir}/${name}`);

async function remoteStat(ctx: Context, box: string, p: string): Promise<FileStat | null> {
  try {
    return await ctx.client.statFile(ctx.project, box, p);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') return null;
    throw err;
  }
}

/** Uploads one local file with its length, streamed, a bar on a terminal. */
async function uploadFile(ctx: Context, box: string, local: string, remote: string): Promise<void> {
  const { size, mode } = fs.statSync(local);
  const bar = await transferBar({ label: path.basename(local), total: size, stream: ctx.stderr });
  const body = fs.createReadStream(local).pipe(bar);
  await ctx.client.writeFile(ctx.project, box, remote, body, {
    size,
    mode: (mode & 0o7777).toString(8).padStart(4, '0'),
  });
}

async function upload(ctx: Context, local: string, box: string, remote: string): Promise<void> {
  const st = fs.statSync(local, { throwIfNoEntry: false });
  if (!st) throw new UsageError(`"${local}" does not exist on this machine`);
  const existing = await remoteStat(ctx, box, remote);
  // Like cp: a trailing slash names a directory; a file never takes that name.
  if (remote.endsWith('/') && remote !== '/' && existing?.type !== 'dir' && !(st.isDirectory() && !existing))
    throw new ApiError(
      existing ? 'conflict' : 'not_found',
      existing
        ? `${box}:${remote} is not a directory (it is a ${existing.type})`
        : `${box}:${remote} does not exist; make it first (box files mkdir -p ${box} ${remote}), or leave out the trailing slash to copy to that name`,
    );
  // Like cp: into an existing directory, under the source's own name.
  const target = existing?.type === 'dir' ? posixJoin(remote, path.basename(path.resolve(local))) : remote;
  if (st.isFile()) return uploadFile(ctx, box, local, target);
  if (!st.isDirectory()) throw new UsageError(`"${local}" is neither a file nor a directory`);
  await ctx.client.makeDirectory(ctx.project, box, target, { parents: true });
  for (const entry of fs.readdirSync(local, { withFileTypes: true, recursive: true })) {
    const abs = path.join(entry.parentPath, entry.name);
    const rel = path.relative(local, abs).split(path.sep).join('/');
    if (entry.isDirectory())
      await ctx.client.makeDirectory(ctx.project, box, posixJoin(target, rel), { parents: true });
    else if (entry.isFile()) await uploadFile(ctx, box, abs, posixJoin(target, rel));
    else ctx.stderr.write(`box: skipped ${abs}: only regular files and directories are copied\n`);
  }
}

/** Unpacks the core's tar of a directory into `dest`; every entry must stay inside it. */
async function unpack(source: Readable, dest: string): Promise<void> {
  const root = path.resolve(dest);
  fs.mkdirSync(root, { recursive: true });
  // tar-stream is read only by a `box cp` of a directory.
  const { default: tar } = await import('tar-stream');
  const extract = tar.extract();
  const done = pipeline(source, extract as unknown as Writable);
  for await (const entry of extract) {
    const target = path.resolve(root, entry.header.name);
    if (target !== root && !target.startsWith(root + path.sep))
      throw new ApiError('invalid_body', `refusing an archive entry that leaves ${root}: "${entry.header.name}"`);
    const mode = (entry.header.mode ?? 0o644) & 0o777;
    if (entry.header.type === 'directory') {
      fs.mkdirSync(target, { recursive: true, mode });
      entry.resume();
    } else if (entry.header.type === 'file') {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      await pipeline(entry as unknown as Readable, fs.createWriteStream(target, { mode }));
    } else {
      entry.resume();
    }
  }
  await done;
}

async function download(ctx: Context, box: string, remote: string, local: string): Promise<void> {
  const stat = await ctx.client.statFile(ctx.project, box, remote);
  const localStat = fs.statSync(local, { throwIfNoEntry: false });
  if (/[/\\]$/.test(local) && !localStat?.isDirectory() && !(stat.type === 'dir' && !localStat))
    throw new Error(
      localStat
        ? `"${local}" is not a directory`
        : `"${local}" does not exist; make it first, or leave out the trailing slash to copy to that name`,
    );
  const target = localStat?.isDirectory() ? path.join(local, path.posix.basename(remote) || 'root') : local;
  const isDir =
    stat.type === 'dir' ||
    (stat.type === 'symlink' &&
      (await ctx.client.listFiles(ctx.project, box, remote).then(
        () => true,
        () => false,
      )));
  if (isDir) {
    const res = await ctx.client.readArchive(ctx.project, box, remote);
    const bar = await transferBar({ label: path.posix.basename(remote) || '/', stream: ctx.stderr });
    const body = Readable.fromWeb(res.body as never).pipe(bar);
    return unpack(body, target);
  }
  const res = await ctx.client.readFile(ctx.project, box, remote);
  const total = Number(res.headers.get('content-length') ?? NaN);
  const bar = await transferBar({
    label: path.posix.basename(remote),
    total: Number.isFinite(total) ? total : undefined,
    stream: ctx.stderr,
  });
  const out =
    local === '-' ? ctx.stdout : fs.createWriteStream(target, { mode: Number.parseInt(stat.mode, 8) & 0o777 });
  await pipeline(Readable.fromWeb(res.body as never), bar, out, { end: local !== '-' });
}

function registerCopy(program: Command, cli: Cli): void {
  cli.action(
    program
      .command('cp <SRC> <DST>')
      .description('copy files or directories between this machine and a box, streamed (a progress bar on a terminal)')
      .usage('SRC DST   (one side NAME:/path; "-" as DST writes a file to stdout)'),
    async (ctx, [src, dst]) => {
      const from = parseSide(src!);
      const to = parseSide(dst!);
      if ('box' in from && 'local' in to) return download(ctx, from.box, from.path, to.local);
      if ('local' in from && 'box' in to) return upload(ctx, from.local, to.box, to.path);
      throw new UsageError('exactly one side must be in a box: box cp NAME:/path LOCAL or box cp LOCAL NAME:/path');
    },
  );
}

const fileColumns = [
  { header: 'MODE', get: (f: FileStat) => f.mode },
  { header: 'TYPE', get: (f: FileStat) => f.type },
  { header: 'SIZE', get: (f: FileStat) => f.size },
  { header: 'MTIME', get: (f: FileStat) => f.mtime },
  {
    header: 'NAME',
    get: (f: FileStat) => path.posix.basename(f.path) + (f.link_target !== undefined ? ` -> ${f.link_target}` : ''),
  },
];

const CHANGE_LETTERS = { added: 'A', changed: 'C', deleted: 'D' } as const;

/** `box files ls|cat|rm|mkdir|changes`. */
function registerFilesGroup(program: Command, cli: Cli): void {
  const files = program.command('files').description("a box's files: ls, cat, rm, mkdir, changes (running or stopped)");
  cli.action(
    files
      .command('ls <NAME>')
      .description("list a directory's entries")
      .argument('[PATH]', 'absolute path', '/workspace'),
    async (ctx, [name, p]) =>
      printList(ctx, await ctx.client.listFiles(ctx.project, name!, p ?? '/'), fileColumns, `${p ?? '/'} is empty`),
  );
  cli.action(
    files.command('cat <NAME> <PATH>').description("write a file's bytes to stdout"),
    async (ctx, [name, p]) => {
      const res = await ctx.client.readFile(ctx.project, name!, p!);
      await pipeline(Readable.fromWeb(res.body as never), ctx.stdout, { end: false });
    },
  );
  cli.action<{ recursive?: boolean }>(
    files
      .command('rm <NAME> <PATH>')
      .description('delete a file, a symlink or an empty directory')
      .option('-r, --recursive', 'delete a directory with everything in it'),
    async (ctx, [name, p], opts) => ctx.client.deleteFile(ctx.project, name!, p!, { recursive: opts.recursive }),
  );
  cli.action<{ parents?: boolean }>(
    files
      .command('mkdir <NAME> <PATH>')
      .description('create a directory')
      .option('-p, --parents', 'create missing parents; an existing directory is fine'),
    async (ctx, [name, p], opts) =>
      print(ctx, await ctx.client.makeDirectory(ctx.project, name!, p!, { parents: opts.parents }), () => ''),
  );
  cli.action(
    files.command('changes <NAME>').description("paths added (A), changed (C) or deleted (D) against the box's base"),
    async (ctx, [name]) => {
      const changes = await ctx.client.fileChanges(ctx.project, name!);
      print(ctx, changes, () => changes.items.map((c) => `${CHANGE_LETTERS[c.kind]} ${c.path}\n`).join(''));
    },
  );
}

/** `box cp` and `box files …`: a box's files, running or stopped. */
export const files = commandModule('files', [registerCopy, registerFilesGroup]);
