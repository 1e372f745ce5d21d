import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { Base } from '../../shared/schemas/system';
import type { Cli } from '../actions';
import { buildAndFollow, buildSummary } from '../follow-build';
import { collect, UsageError, wholeNumber } from '../options';
import { packFiles, projectFiles } from '../project-files';
import { age, formatBytes } from '../output';
import { print, printList } from '../print';
import type { CommandModule } from '../program';
import { transferBar, withSpinner } from '../progress';

const baseColumns = [
  { header: 'NAME', get: (b: Base) => b.name },
  { header: 'IMAGE', get: (b: Base) => b.image },
  { header: 'SIZE', get: (b: Base) => (b.size_bytes === null ? null : formatBytes(b.size_bytes)) },
  { header: 'WARM', get: (b: Base) => String(b.warm) },
  { header: 'AGE', get: (b: Base) => age(b.created_at) },
];

interface CreateFlags {
  fromSnapshot?: string;
  fromBox?: string;
  image?: string;
}

/** `box base add` and `box base create`: a base from an image, a snapshot or a box. */
function registerCreate(base: Command, cli: Cli): void {
  cli.action(
    base.command('add <NAME> <IMAGE>').description('register an image already in the engine as a base'),
    async (ctx, [name, image]) => {
      const body = { name: name!, image: image! };
      const created = await withSpinner(`adding base ${name}`, () => ctx.client.createBase(body), ctx.stderr);
      print(ctx, created, () => `base ${created.name} added (${created.image})\n`);
    },
  );
  cli.action<CreateFlags>(
    base
      .command('create <NAME>')
      .description('make a base from a snapshot, a box of the project, or an image the engine has')
      .option('--from-snapshot <ID>', 'a snapshot id')
      .option('--from-box <BOX>', 'a box of the project (its root at this instant)')
      .option('--image <IMAGE>', 'an image already in the engine'),
    async (ctx, [name], opts) => {
      const given = [opts.fromSnapshot, opts.fromBox, opts.image].filter((v) => v !== undefined).length;
      if (given !== 1) throw new UsageError('give exactly one of --from-snapshot, --from-box, --image');
      const body = opts.fromSnapshot
        ? { name: name!, from_snapshot: opts.fromSnapshot }
        : opts.fromBox
          ? { name: name!, from_box: opts.fromBox, project: ctx.project }
          : { name: name!, image: opts.image! };
      const created = await withSpinner(`making base ${name}`, () => ctx.client.createBase(body), ctx.stderr);
      print(ctx, created, () => `base ${created.name} created\n`);
    },
  );
}

/** `box base import NAME FILE|-`: a root filesystem tar, streamed with a transfer bar. */
function registerImport(base: Command, cli: Cli): void {
  cli.action(
    base
      .command('import <NAME> <FILE>')
      .description('make a base from a root filesystem tar (FILE, or - for stdin), with a progress bar'),
    async (ctx, [name, file]) => {
      let size: number | undefined;
      if (file !== '-') {
        try {
          size = fs.statSync(file!).size;
        } catch (err) {
          throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
      }
      const source = file === '-' ? process.stdin : fs.createReadStream(file!);
      const bar = await transferBar({ label: `importing ${name}`, total: size, stream: ctx.stderr });
      source.on('error', (err: Error) => bar.destroy(err));
      const created = await ctx.client.importBase(name!, source.pipe(bar), size);
      print(ctx, created, () => `base ${created.name} imported (${formatBytes(bar.bytes)})\n`);
    },
  );
}

interface BuildFlags {
  file?: string;
  buildArg?: string[];
  target?: string;
}

/** The context of a build: DIR's files minus its .dockerignore'd ones, and the Dockerfile wherever it is. */
export function buildContext(
  dir: string,
  dockerfile: string | undefined,
): { tar: ReturnType<typeof packFiles>; dockerfile: string } {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`"${dir}" is not a folder`);
  const file = path.resolve(dockerfile ?? path.join(dir, 'Dockerfile'));
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile())
    throw new UsageError(`no Dockerfile at ${file}: name one with -f`);
  const files = projectFiles(dir, 'dockerignore');
  const inside = path.relative(path.resolve(dir), file).split(path.sep).join('/');
  if (!inside.startsWith('../') && files.files.includes(inside))
    return { tar: packFiles(dir, files), dockerfile: inside };
  // A Dockerfile outside the folder (or ignored in it) goes with the context under a name of its own.
  const name = '.boxdesk.Dockerfile';
  return { tar: packFiles(dir, files, [{ name, file }]), dockerfile: name };
}

/** `box base build NAME [-f Dockerfile] [--build-arg K=V]… [DIR]`: the log streamed, non-zero when it fails. */
function registerBuild(base: Command, cli: Cli): void {
  cli.action<BuildFlags>(
    base
      .command('build <NAME> [DIR]')
      .description(
        'build a base from a Dockerfile (FROM boxdesk/<base> names a base) with DIR (default .) as its context; a base that exists is rebuilt',
      )
      .option('-f, --file <DOCKERFILE>', 'the Dockerfile (default DIR/Dockerfile)')
      .option('--build-arg <K=V>', 'a build argument (repeatable)', collect)
      .option('--target <STAGE>', 'the stage to build'),
    async (ctx, [name, dir], opts) => {
      for (const kv of opts.buildArg ?? [])
        if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(kv)) throw new UsageError(`--build-arg ${kv}: write it as NAME=VALUE`);
      const context = buildContext(dir ?? '.', opts.file);
      const outcome = await buildAndFollow(ctx, name!, context.tar, {
        dockerfile: context.dockerfile,
        buildArgs: opts.buildArg,
        target: opts.target,
      });
      ctx.stderr.write(buildSummary(name!, outcome));
      if (outcome.build.status !== 'done') return 1;
      print(ctx, outcome.build, () => `${name}\n`);
    },
  );
}

/** `box base update NAME --warm N`: the base's warm pool. */
function registerUpdate(base: Command, cli: Cli): void {
  cli.action<{ warm?: number }>(
    base
      .command('update <NAME>')
      .description("change a base's settings: its warm pool (paused containers kept ready for fast creates)")
      .option('--warm <N>', 'containers to keep ready, 0 to 32 (0: none)', wholeNumber('--warm')),
    async (ctx, [name], opts) => {
      if (opts.warm === undefined) throw new UsageError('give --warm N (0 to 32)');
      const updated = await ctx.client.updateBase(name!, { warm: opts.warm });
      print(ctx, updated, () => `base ${updated.name}: warm ${updated.warm}\n`);
    },
  );
}

/** `box base …`: the templates boxes start from. `box snapshot` and `box create --base` use them. */
export const bases: CommandModule = {
  name: 'bases',
  register(program, cli) {
    const base = program.command('base').description('base templates: ls, add, create, import, build, update, rm');
    cli.action(base.command('ls').description('list base templates'), async (ctx) =>
      printList(ctx, await ctx.client.listBases(), baseColumns, 'no bases'),
    );
    registerCreate(base, cli);
    registerImport(base, cli);
    registerBuild(base, cli);
    registerUpdate(base, cli);
    cli.removal(
      base.command('rm <NAME...>').description('delete bases (refused while a box, snapshot or other base uses one)'),
      (ctx, name) => ctx.client.deleteBase(name),
      (name) => `base ${name} deleted`,
    );
  },
};
