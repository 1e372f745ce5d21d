import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { Volume, VolumeBackup, VolumeCreate, VolumeSnapshot } from '../../shared/schemas/volumes';
import type { Context } from '../context';
import type { Cli } from '../actions';
import { UsageError, waitOptions, wholeNumber, type WaitFlags } from '../options';
import { age, details, formatBytes } from '../output';
import { deleteEach, print, printList } from '../print';
import type { CommandModule } from '../program';
import { transferBar, withSpinner } from '../progress';

const mounts = (v: Volume) => v.mounts.map((m) => `${m.box}:${m.path}${m.read_only ? ':ro' : ''}`).join(', ');

const volumeColumns = [
  { header: 'NAME', get: (v: Volume) => v.name },
  { header: 'SIZE', get: (v: Volume) => formatBytes(v.size_bytes) },
  { header: 'SIZE_GB', get: (v: Volume) => v.size_gb },
  { header: 'MOUNTS', get: mounts },
  { header: 'AGE', get: (v: Volume) => age(v.created_at) },
];

const snapshotColumns = [
  { header: 'ID', get: (s: VolumeSnapshot) => s.id },
  { header: 'SIZE', get: (s: VolumeSnapshot) => formatBytes(s.size_bytes) },
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
    ['size_gb', v.size_gb === null ? null : `${v.size_gb}${v.size_enforced ? '' : ' (not enforced)'}`],
    ['mounts', mounts(v)],
    ['backup_retention', v.backup_retention],
    ['created', v.created_at],
  ]);
}

interface CreateFlags {
  sizeGb?: number;
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
  if (opts.retention !== undefined) body.backup_retention = opts.retention;
  if (opts.fromVolume) body.from_volume = opts.fromVolume;
  if (opts.fromSnapshot) body.from_snapshot = opts.fromSnapshot;
  if (opts.fromBackup) body.from_backup = opts.fromBackup;
  return body;
}

/** `box volume create|ls|get|rm`. */
function registerCore(group: Command, cli: Cli): void {
  const create = group
    .command('create')
    .description('create a volume: empty, or a clone of a volume, a volume snapshot or a backup')
    .argument('<NAME>')
    .option('--size-gb <N>', 'size in GiB (recorded; the local driver cannot enforce it)', wholeNumber('--size-gb', 1))
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
  cli.action(group.command('get').description('show one volume').argument('<NAME>'), async (ctx, [name]) => {
    const v = await ctx.client.getVolume(ctx.project, name!);
    print(ctx, v, () => volumeDetails(v));
  });
  cli.action(
    group
      .command('rm')
      .description('delete volumes with their snapshots and backups (refused while a box mounts one)')
      .argument('<NAME...>'),
    (ctx, names) =>
      deleteEach(
        ctx,
        names,
        (n) => ctx.client.deleteVolume(ctx.project, n),
        (n) => `volume ${n} deleted`,
      ),
  );
}

/** `box volume attach|detach`: mounts in boxes. */
function registerMounts(group: Command, cli: Cli): void {
  const attach = group
    .command('attach')
    .description(
      "mount a volume in a box at PATH (the box's container is recreated, root kept: a running box restarts)",
    )
    .argument('<NAME>')
    .argument('<BOX>')
    .argument('<PATH>')
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
    group
      .command('detach')
      .description('unmount a volume from a box (a running box restarts)')
      .argument('<NAME>')
      .argument('<BOX>'),
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
    .command('restore')
    .description(
      "replace a volume's data by one of its snapshots or backups (every box that mounts it must be stopped)",
    )
    .argument('<NAME>')
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

function registerSnapshots(group: Command, cli: Cli): void {
  const snap = group.command('snapshot').description('point-in-time copies of a volume: create, ls, rm');
  cli.action(
    snap
      .command('create')
      .description('snapshot a volume (running boxes that write to it are paused for the copy)')
      .argument('<NAME>'),
    async (ctx, [name]) => {
      const s = await withSpinner(
        `snapshotting ${name}`,
        () => ctx.client.createVolumeSnapshot(ctx.project, name!),
        ctx.stderr,
      );
      print(ctx, s, () => `snapshot ${s.id} of ${s.volume}, ${formatBytes(s.size_bytes)} (${s.method})\n`);
    },
  );
  cli.action(snap.command('ls').description("a volume's snapshots").argument('<NAME>'), async (ctx, [name]) =>
    printList(
      ctx,
      await ctx.client.listVolumeSnapshots(ctx.project, name!),
      snapshotColumns,
      `no snapshots of volume ${name}`,
    ),
  );
  cli.action(
    snap.command('rm').description('delete snapshots of a volume').argument('<NAME>').argument('<ID...>'),
    (ctx, [name, ...ids]) =>
      deleteEach(
        ctx,
        ids,
        (id) => ctx.client.deleteVolumeSnapshot(ctx.project, name!, id),
        (id) => `snapshot ${id} deleted`,
      ),
  );
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
  const create = backup
    .command('create')
    .description('start a backup; with --wait, wait until it is done')
    .argument('<NAME>');
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
  cli.action(
    backup.command('ls').description("a volume's backups, oldest first").argument('<NAME>'),
    async (ctx, [name]) =>
      printList(
        ctx,
        await ctx.client.listVolumeBackups(ctx.project, name!),
        backupColumns,
        `no backups of volume ${name}`,
      ),
  );
  cli.action(
    backup.command('rm').description('delete backups of a volume').argument('<NAME>').argument('<ID...>'),
    (ctx, [name, ...ids]) =>
      deleteEach(
        ctx,
        ids,
        (id) => ctx.client.deleteVolumeBackup(ctx.project, name!, id),
        (id) => `backup ${id} deleted`,
      ),
  );

  const download = group
    .command('download')
    .description("save a backup's .tar.gz (with a progress bar); its sha256 is checked")
    .argument('<NAME>')
    .argument('<BACKUP_ID>')
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
    const bar = transferBar({
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
