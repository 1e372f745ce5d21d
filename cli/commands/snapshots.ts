import type { Command } from 'commander';
import type { Snapshot } from '../../shared/schemas/snapshots';
import type { Context } from '../context';
import { UsageError } from '../options';
import type { Cli } from '../actions';
import { age, details, formatBytes } from '../output';
import { print, printList } from '../print';
import { commandModule } from '../program';
import { withSpinner } from '../progress';

const SNAPSHOT_ID = /^snap_[a-z2-7]{20}$/;

/** What deleting it would free, where the store can tell (a snapshot taken on btrfs). */
const frees = (s: Snapshot) =>
  s.exclusive_bytes === undefined || s.exclusive_bytes === null ? null : formatBytes(s.exclusive_bytes);

const snapshotColumns = [
  { header: 'ID', get: (s: Snapshot) => s.id },
  { header: 'NAME', get: (s: Snapshot) => s.name },
  { header: 'BOX', get: (s: Snapshot) => s.box },
  { header: 'SIZE', get: (s: Snapshot) => formatBytes(s.size_bytes) },
  { header: 'FREES', get: (s: Snapshot) => frees(s) },
  { header: 'PARENT', get: (s: Snapshot) => s.parent_id },
  { header: 'AGE', get: (s: Snapshot) => age(s.created_at) },
];

function printSnapshot(ctx: Context, s: Snapshot, line?: string): void {
  print(
    ctx,
    s,
    () =>
      line ??
      details([
        ['id', s.id],
        ['name', s.name],
        ['project', s.project],
        ['box', s.box],
        ['size', formatBytes(s.size_bytes)],
        ['frees', frees(s)],
        ['parent', s.parent_id],
        ['created', s.created_at],
      ]),
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

function registerSnapshotGroup(program: Command, cli: Cli): void {
  const group = program.command('snapshot').description("snapshots of a box's root: create, ls, get, rm");
  cli.action<{ name?: string }>(
    group
      .command('create <BOX>')
      .description('snapshot a box (running or stopped)')
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
    group.command('ls [BOX]').description("a box's snapshots; without BOX, every snapshot of the project"),
    async (ctx, [box]) => {
      const list = box
        ? await ctx.client.listSnapshots(ctx.project, box)
        : await ctx.client.listProjectSnapshots(ctx.project);
      printList(
        ctx,
        list,
        snapshotColumns,
        box ? `no snapshots of box ${box}` : `no snapshots in project ${ctx.project}`,
      );
    },
  );
  cli.action(group.command('get <ID>').description('show one snapshot'), async (ctx, [id]) => {
    printSnapshot(ctx, await ctx.client.getSnapshot(ctx.project, id!));
  });
  cli.removal(
    group.command('rm <ID...>').description('delete snapshots (refused while something descends from one)'),
    (ctx, id) => ctx.client.deleteSnapshot(ctx.project, id),
    (id) => `snapshot ${id} deleted`,
  );
}

function registerRestore(program: Command, cli: Cli): void {
  cli.action(
    program
      .command('restore <BOX>')
      .description("replace a box's root by a snapshot's (a running box restarts; a stopped one stays stopped)")
      .argument('<SNAPSHOT>', "a snapshot id, or the name of one of the box's snapshots"),
    async (ctx, [box, ref]) => {
      const id = await resolveSnapshot(ctx, box!, ref!);
      const restored = await withSpinner(
        `restoring ${box} to ${ref}`,
        () => ctx.client.restoreBox(ctx.project, box!, { snapshot_id: id }),
        ctx.stderr,
      );
      print(ctx, restored, () => `box ${restored.name} restored to ${ref} (${restored.status})\n`);
    },
  );
}

/** `box snapshot …` and `box restore`. `box fork SRC NEW` (boxes.ts) takes a snapshot id as SRC. */
export const snapshots = commandModule('snapshots', [registerSnapshotGroup, registerRestore]);
