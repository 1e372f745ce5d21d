import fs from 'node:fs';
import type { Command } from 'commander';
import type { Snapshot } from '../../shared/schemas/snapshots';
import type { Context } from '../context';
import { UsageError } from '../options';
import { age, details, render, table } from '../output';
import type { Area } from '../program';
import { formatBytes, transferBar, withSpinner } from '../progress';

const SNAPSHOT_ID = /^snap_[a-z2-7]{20}$/;

const snapshotColumns = [
  { header: 'ID', get: (s: Snapshot) => s.id },
  { header: 'NAME', get: (s: Snapshot) => s.name },
  { header: 'BOX', get: (s: Snapshot) => s.box },
  { header: 'SIZE', get: (s: Snapshot) => formatBytes(s.size_bytes) },
  { header: 'PARENT', get: (s: Snapshot) => s.parent_id },
  { header: 'AGE', get: (s: Snapshot) => age(s.created_at) },
];

function printSnapshot(ctx: Context, s: Snapshot, line?: string): void {
  ctx.stdout.write(
    render(
      ctx.format,
      s,
      () =>
        line ??
        details([
          ['id', s.id],
          ['name', s.name],
          ['project', s.project],
          ['box', s.box],
          ['size', formatBytes(s.size_bytes)],
          ['parent', s.parent_id],
          ['created', s.created_at],
        ]),
    ),
  );
}

/** A snapshot id as is, else the snapshot of that name among the box's. */
async function resolveSnapshot(ctx: Context, box: string, ref: string): Promise<string> {
  if (SNAPSHOT_ID.test(ref)) return ref;
  const { items } = await ctx.client.listSnapshots(ctx.project, box);
  const hit = items.find((s) => s.name === ref);
  if (!hit) throw new UsageError(`box "${box}" has no snapshot named "${ref}"; "box snapshot ls ${box}" lists them`);
  return hit.id;
}

function registerSnapshotGroup(program: Command, cli: Parameters<Area>[1]): void {
  const group = program.command('snapshot').description("snapshots of a box's root: create, ls, get, rm");
  cli.action<{ name?: string }>(
    group
      .command('create')
      .description('snapshot a box (running or stopped)')
      .argument('<BOX>')
      .option('--name <NAME>', 'the snapshot name (default: generated)'),
    async (ctx, [box], opts) => {
      const snap = await withSpinner(
        `snapshotting ${box}`,
        () => ctx.client.createSnapshot(ctx.project, box!, opts.name ? { name: opts.name } : {}),
        ctx.stderr,
      );
      printSnapshot(ctx, snap, `snapshot ${snap.name} (${snap.id}) of ${snap.box}, ${formatBytes(snap.size_bytes)}\n`);
    },
  );
  cli.action(
    group.command('ls').description("a box's snapshots; without BOX, every snapshot of the project").argument('[BOX]'),
    async (ctx, [box]) => {
      const list = box
        ? await ctx.client.listSnapshots(ctx.project, box)
        : await ctx.client.listProjectSnapshots(ctx.project);
      ctx.stdout.write(render(ctx.format, list, () => table(list.items, snapshotColumns)));
    },
  );
  cli.action(group.command('get').description('show one snapshot').argument('<ID>'), async (ctx, [id]) => {
    printSnapshot(ctx, await ctx.client.getSnapshot(ctx.project, id!));
  });
  cli.action(
    group.command('rm').description('delete snapshots (refused while something descends from one)').argument('<ID...>'),
    async (ctx, ids) => {
      for (const id of ids) {
        await ctx.client.deleteSnapshot(ctx.project, id);
        if (ctx.format === 'table') ctx.stdout.write(`snapshot ${id} deleted\n`);
      }
    },
  );

  cli.action(
    program
      .command('restore')
      .description("replace a box's root by a snapshot's (a running box restarts; a stopped one stays stopped)")
      .argument('<BOX>')
      .argument('<SNAPSHOT>', "a snapshot id, or the name of one of the box's snapshots"),
    async (ctx, [box, ref]) => {
      const id = await resolveSnapshot(ctx, box!, ref!);
      const restored = await withSpinner(
        `restoring ${box} to ${ref}`,
        () => ctx.client.restoreBox(ctx.project, box!, { snapshot_id: id }),
        ctx.stderr,
      );
      ctx.stdout.write(
        render(ctx.format, restored, () => `box ${restored.name} restored to ${ref} (${restored.status})\n`),
      );
    },
  );
}

interface BaseCreateFlags {
  fromSnapshot?: string;
  fromBox?: string;
  image?: string;
}

/** Adds create, import and rm to the `base` group (made by the system area). */
function extendBaseGroup(program: Command, cli: Parameters<Area>[1]): void {
  const base = program.commands.find((c) => c.name() === 'base') ?? program.command('base');
  base.description('base templates: ls, add, create, import, rm');
  cli.action<BaseCreateFlags>(
    base
      .command('create')
      .description('make a base from a snapshot, a box of the project, or an image the engine has')
      .argument('<NAME>')
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
      ctx.stdout.write(render(ctx.format, created, () => `base ${created.name} created\n`));
    },
  );
  cli.action(
    base
      .command('import')
      .description('make a base from a root filesystem tar (FILE, or - for stdin), with a progress bar')
      .argument('<NAME>')
      .argument('<FILE>'),
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
      const bar = transferBar({ label: `importing ${name}`, total: size, stream: ctx.stderr });
      source.on('error', (err: Error) => bar.destroy(err));
      const created = await ctx.client.importBase(name!, source.pipe(bar), size);
      ctx.stdout.write(
        render(ctx.format, created, () => `base ${created.name} imported (${formatBytes(bar.bytes)})\n`),
      );
    },
  );
  cli.action(
    base.command('rm').description('delete bases (refused while a box or snapshot uses one)').argument('<NAME...>'),
    async (ctx, names) => {
      for (const name of names) {
        await ctx.client.deleteBase(name);
        if (ctx.format === 'table') ctx.stdout.write(`base ${name} deleted\n`);
      }
    },
  );
}

/** `box snapshot …`, `box restore`, and `box base create|import|rm`. `box fork SRC NEW` (boxes.ts) takes a snapshot id as SRC. */
export const registerSnapshotCommands: Area = (program, cli) => {
  registerSnapshotGroup(program, cli);
  extendBaseGroup(program, cli);
};
