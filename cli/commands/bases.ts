import fs from 'node:fs';
import type { Command } from 'commander';
import type { Base } from '../../shared/schemas/system';
import type { Cli } from '../actions';
import { UsageError } from '../options';
import { age, formatBytes } from '../output';
import { print, printList } from '../print';
import type { CommandModule } from '../program';
import { transferBar, withSpinner } from '../progress';

const baseColumns = [
  { header: 'NAME', get: (b: Base) => b.name },
  { header: 'IMAGE', get: (b: Base) => b.image },
  { header: 'SIZE', get: (b: Base) => (b.size_bytes === null ? null : formatBytes(b.size_bytes)) },
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

/** `box base …`: the templates boxes start from. `box snapshot` and `box create --base` use them. */
export const bases: CommandModule = {
  name: 'bases',
  register(program, cli) {
    const base = program.command('base').description('base templates: ls, add, create, import, rm');
    cli.action(base.command('ls').description('list base templates'), async (ctx) =>
      printList(ctx, await ctx.client.listBases(), baseColumns, 'no bases'),
    );
    registerCreate(base, cli);
    registerImport(base, cli);
    cli.removal(
      base.command('rm <NAME...>').description('delete bases (refused while a box, snapshot or other base uses one)'),
      (ctx, name) => ctx.client.deleteBase(name),
      (name) => `base ${name} deleted`,
    );
  },
};
