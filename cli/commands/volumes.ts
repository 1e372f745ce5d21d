import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { Volume, VolumeBackup, VolumeCreate, VolumeSnapshot } from '../../shared/schemas/volumes';
import type { Context } from '../context';
import type { Cli } from '../actions';
import { UsageError, waitOptions, wholeNumber, type WaitFlags } from '../options';
import { age, details, formatBytes, type Column } from '../output';
import { print, printList } from '../print';
import type { CommandModule } from '../program';
import { transferBar, withSpinner } from '../progress';

/** What deleting it would free: blocks no snapshot or clone shares (a dash when not measured). */
const frees = (x: { exclusive_bytes?: number | null }) =>
  x.exclusive_bytes === undefined || x.exclusive_bytes === null ? null : formatBytes(x.exclusive_bytes);

const mounts = (v: Volume) => v.mounts.map((m) => `${m.box}:${m.path}${m.read_only ? ':ro' : ''}`).join(', ');

const volumeColumns = [
  { header: 'NAME', get: (v: Volume) => v.name },
  { header: 'SIZE', get: (v: Volume) => formatBytes(v.size_bytes) },
  { header: 'FREES', get: frees },
  { header: 'SIZE_GB', get: (v: Volume) => v.size_gb },
  { header: 'MOUNTS', get: mounts },
  { header: 'AGE', get: (v: Volume) => age(v.created_at) },
];

const snapshotColumns = [
  { header: 'ID', get: (s: VolumeSnapshot) => s.id },
  { header: 'SIZE', get: (s: VolumeSnapshot) => formatBytes(s.size_bytes) },
  { header: 'FREES', get: frees },
  { header: 'METHOD', get: (s: VolumeSnapshot) => s.method },
  { header: 'AGE', get: (s: VolumeSnapshot) => age(s.created_at) },
];

const backupColumns = [
  { header: 'ID', get: (b: VolumeBackup) => b.id },
  {
    header: 'STATUS',
    get: (b: VolumeBackup) =>
      b.reason
        ? `${b.status} (${b.reason})`
        : b.status === 'done' && !b.available
          ? 'done (archive missing: delete it)'
          : b.status,
  },
  { header: 'SIZE', get: (b: VolumeBackup) => (b.size_bytes === null ? null : formatBytes(b.size_bytes)) },
  { header: 'SHA256', get: (b: VolumeBackup) => b.sha256?.slice(0, 16) ?? null },
  { header: 'AGE', get: (b: VolumeBackup) => age(b.created_at) },
];

function volumeDetails(v: Volume): string {
  return details([
    ['name', v.name],
    ['id', v.id],
    ['project', v.project],
    ['size', formatBytes(v.size_bytes)],
    ['frees', frees(v)],
    ['size_gb', v.size_gb === null ? null : `${v.size_gb}${v.size_enforced ? '' : ' (not enforced)'}`],
    ['mounts', mounts(v)],
    ['region', v.region],
    ['backup_retention', v.backup_retention],
    ['created', v.created_at],
  ]);
}

interface CreateFlags {
  sizeGb?: number;
  region?: string;
  retention?: number;
  fromVolume?: string;
  fromSnapshot?: string;
  fromBackup?: string;
}

function createBody(name: string, opts: CreateFlags): VolumeCreate {
  const from = [opts.fromVolume, opts.fromSnapshot, opts.fromBackup].filter((v) => v !== undefined);
  if (from.length > 1) throw new UsageError('give at most one of --from-volume, --from-snapshot, --from-backup');
  const body: VolumeCreate = { name };
  if (opts.sizeGb !== undefined) body.size_gb = opts.sizeGb;
  if (opts.region !== undefined) body.region = opts.region;
  if (opts.retention !== undefined) body.backup_retention = opts.retention;
  if (opts.fromVolume) body.from_volume = opts.fromVolume;
  if (opts.fromSnapshot) body.from_snapshot = opts.fromSnapshot;
  if (opts.fromBackup) body.from_backup = opts.fromBackup;
  return body;
}

/** `box volume create|ls|get|rm`. */
function registerCore(group: Command, cli: Cli): void {
  const create = group
    .command('create <NAME>')
    .description('create a volume: empty, or a clone of a volume, a volume snapshot or a backup')
    .option('--size-gb <N>', 'size in GiB (enforced where the store can: btrfs)', wholeNumber('--size-gb', 1))
    .option('--region <NAME>', 'the region (engine) to make it in; only boxes there mount it (default: the first)')
    .option('--retention <N>', 'backups kept (default 7)', wholeNumber('--retention', 1))
    .option('--from-volume <VOLUME>', 'clone this volume at this instant')
    .option('--from-snapshot <ID>', 'clone a volume snapshot')
    .option('--from-backup <ID>', 'clone a backup');
  cli.action<CreateFlags>(create, async (ctx, [name], opts) => {
    const body = createBody(name!, opts);
    const v = await withSpinner(
      `creating volume ${name}`,
      () => ctx.client.createVolume(ctx.project, body),
      ctx.stderr,
    );
    print(ctx, v, () => `volume ${v.name} created (${formatBytes(v.size_bytes)})\n`);
  });
  cli.action(group.command('ls').description("the project's volumes"), async (ctx) =>
    printList(ctx, await ctx.client.listVolumes(ctx.project), volumeColumns, `no volumes in project ${ctx.project}`),
  );
  cli.action(group.command('get <NAME>').description('show one volume'), async (ctx, [name]) => {
    const v = await ctx.client.getVolume(ctx.project, name!);
    print(ctx, v, () => volumeDetails(v));
  });
  cli.removal(
    group
      .command('rm <NAME...>')
      .description('delete volumes with their snapshots and backups (refused while a box mounts one)'),
    (ctx, name) => ctx.client.deleteVolume(ctx.project, name),
    (name) => `volume ${name} deleted`,
  );
}

/** `box volume attach|detach`: mounts in boxes. */
function registerMounts(group: Command, cli: Cli): void {
  const attach = group
    .command('attach <NAME> <BOX> <PATH>')
    .description(
      "mount a volume in a box at PATH (the box's container is recreated, root kept: a running box restarts)",
    )
    .option('--ro', 'read-only');
  cli.action<{ ro?: boolean }>(attach, async (ctx, [name, box, p], opts) => {
    const v = await withSpinner(
      `attaching ${name} to ${box}`,
      () => ctx.client.attachVolume(ctx.project, name!, { box: box!, path: p!, read_only: opts.ro === true }),
      ctx.stderr,
    );
    print(ctx, v, () => `volume ${v.name} mounted in ${box} at ${p}${opts.ro ? ' (read-only)' : ''}\n`);
  });
  cli.action(
    group.command('detach <NAME> <BOX>').description('unmount a volume from a box (a running box restarts)'),
    async (ctx, [name, box]) => {
      const v = await withSpinner(
        `detaching ${name} from ${box}`,
        () => ctx.client.detachVolume(ctx.project, name!, box!),
        ctx.stderr,
      );
      print(ctx, v, () => `volume ${v.name} detached from ${box}\n`);
    },
  );
}

/** `box volume restore`: a volume's data from one of its snapshots or backups. */
function registerRestore(group: Command, cli: Cli): void {
  const restore = group
    .command('restore <NAME>')
    .description(
      "replace a volume's data by one of its snapshots or backups (every box that mounts it must be stopped)",
    )
    .option('--snapshot <ID>', 'a snapshot of the volume')
    .option('--backup <ID>', 'a done backup of the volume');
  cli.action<{ snapshot?: string; backup?: string }>(restore, async (ctx, [name], opts) => {
    if ((opts.snapshot === undefined) === (opts.backup === undefined))
      throw new UsageError('give exactly one of --snapshot, --backup');
    const body = opts.snapshot ? { snapshot_id: opts.snapshot } : { backup_id: opts.backup! };
    const v = await withSpinner(
      `restoring ${name}`,
      () => ctx.client.restoreVolume(ctx.project, name!, body),
      ctx.stderr,
    );
    print(ctx, v, () => `volume ${v.name} restored from ${opts.snapshot ?? opts.backup}\n`);
  });
}

interface CopyKind<T> {
  noun: 'snapshot' | 'backup';
  ls: string;
  columns: readonly Column<T>[];
  list(ctx: Context, volume: string): Promise<{ items: T[] }>;
  remove(ctx: Context, volume: string, id: string): Promise<unknown>;
}

/** `ls NAME` and `rm NAME ID...` of a volume's snapshots or backups. */
function registerCopyList<T>(group: Command, cli: Cli, kind: CopyKind<T>): void {
  cli.action(group.command('ls <NAME>').description(kind.ls), async (ctx, [name]) =>
    printList(ctx, await kind.list(ctx, name!), kind.columns, `no ${kind.noun}s of volume ${name}`),
  );
  cli.removal(
    group.command('rm <NAME> <ID...>').description(`delete ${kind.noun}s of a volume`),
    (ctx, id, [volume]) => kind.remove(ctx, volume!, id),
    (id) => `${kind.noun} ${id} deleted`,
  );
}

function registerSnapshots(group: Command, cli: Cli): void {
  const snap = group.command('snapshot').description('point-in-time copies of a volume: create, ls, rm');
  cli.action(
    snap
      .command('create <NAME>')
      .description('snapshot a volume (running boxes that write to it are paused for the copy)'),
    async (ctx, [name]) => {
      const s = await withSpinner(
        `snapshotting ${name}`,
        () => ctx.client.createVolumeSnapshot(ctx.project, name!),
        ctx.stderr,
      );
      print(ctx, s, () => `snapshot ${s.id} of ${s.volume}, ${formatBytes(s.size_bytes)} (${s.method})\n`);
    },
  );
  registerCopyList(snap, cli, {
    noun: 'snapshot',
    ls: "a volume's snapshots",
    columns: snapshotColumns,
    list: (ctx, name) => ctx.client.listVolumeSnapshots(ctx.project, name),
    remove: (ctx, name, id) => ctx.client.deleteVolumeSnapshot(ctx.project, name, id),
  });
}

/** Polls a backup until it is done or failed. */
async function settle(ctx: Context, name: string, backup: VolumeBackup, timeoutS: number): Promise<VolumeBackup> {
  const deadline = Date.now() + timeoutS * 1000;
  let b = backup;
  while (b.status === 'pending') {
    if (Date.now() > deadline)
      throw new Error(
        `backup ${b.id} still pending after ${timeoutS} s; "box volume backup ls ${name}" shows when it ends`,
      );
    await new Promise((r) => setTimeout(r, 300));
    b = await ctx.client.getVolumeBackup(ctx.project, name, b.id);
  }
  return b;
}

function registerBackups(group: Command, cli: Cli): void {
  const backup = group
    .command('backup')
    .description('compressed archives of a volume in the data dir: create, ls, rm (and "box volume download")');
  const create = backup.command('create <NAME>').description('start a backup; with --wait, wait until it is done');
  cli.action<WaitFlags>(
    waitOptions(create, 'wait until the backup is done (exit 1 if it fails)', 600),
    async (ctx, [name], opts) => {
      let b = await ctx.client.createVolumeBackup(ctx.project, name!);
      if (opts.wait)
        b = await withSpinner(`backing up ${name}`, () => settle(ctx, name!, b, opts.timeout ?? 600), ctx.stderr);
      print(
        ctx,
        b,
        () =>
          `backup ${b.id} of ${name}: ${b.status}${b.size_bytes !== null ? `, ${formatBytes(b.size_bytes)}` : ''}${b.reason ? ` (${b.reason})` : ''}\n`,
      );
      return b.status === 'failed' ? 1 : 0;
    },
  );
  registerCopyList(backup, cli, {
    noun: 'backup',
    ls: "a volume's backups, oldest first",
    columns: backupColumns,
    list: (ctx, name) => ctx.client.listVolumeBackups(ctx.project, name),
    remove: (ctx, name, id) => ctx.client.deleteVolumeBackup(ctx.project, name, id),
  });

  const download = group
    .command('download <NAME> <BACKUP_ID>')
    .description("save a backup's .tar.gz (with a progress bar); its sha256 is checked")
    .option('-O, --out <FILE>', 'where to write it ("-" for stdout; default NAME-ID.tar.gz)');
  cli.action<{ out?: string }>(download, async (ctx, [name, id], opts) => {
    const out = opts.out ?? `${name}-${id}.tar.gz`;
    const res = await ctx.client.downloadVolumeBackup(ctx.project, name!, id!);
    const total = Number(res.headers.get('content-length') ?? NaN);
    const expected = res.headers.get('x-checksum-sha256');
    const hash = createHash('sha256');
    const tap = new Transform({
      transform(chunk: Buffer, _e, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const bar = await transferBar({
      label: `downloading ${id}`,
      total: Number.isFinite(total) ? total : undefined,
      stream: ctx.stderr,
    });
    const sink = out === '-' ? ctx.stdout : fs.createWriteStream(out);
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), tap, bar, sink);
    const actual = hash.digest('hex');
    if (expected && actual !== expected) {
      if (out !== '-') fs.rmSync(out, { force: true });
      throw new Error(`the download's sha256 ${actual} differs from the backup's ${expected}; nothing kept, try again`);
    }
    if (out !== '-') ctx.stderr.write(`${out}: ${formatBytes(bar.bytes)}, sha256 ${actual} (verified)\n`);
  });
}

/** `box volume …`: volumes, their snapshots and backups. `box create -v VOL:/path[:ro]` (boxes.ts) mounts one at create. */
export const volumes: CommandModule = {
  name: 'volumes',
  register(program, cli) {
    const group = program
      .command('volume')
      .description(
        'data volumes that outlive boxes: create, ls, get, rm, attach, detach, snapshot, backup, download, restore',
      );
    registerCore(group, cli);
    registerMounts(group, cli);
    registerRestore(group, cli);
    registerSnapshots(group, cli);
    registerBackups(group, cli);
  },
};
