import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, constants as zlib } from 'node:zlib';
import { ApiError } from '../../../shared/errors';
import type { VolumeBackup } from '../../../shared/schemas/volumes';
import { ARCHIVE_POLICIES } from '../archives/archive-policy';
import { verifyArchive } from '../archives/checked-tar';
import { newId, now } from '../ids';
import { backupProblem, sha256Of } from './backup-archive';
import type { VolumeCopies } from './copies';
import { VOLUME_ID_PREFIXES, type VolumeService } from './service';
import { toVolumeBackup, type VolumeBackupRow, type VolumeRow } from './store';

/** Fast compression: a backup is bound by gzip, and level 1 keeps it near the speed of the tar itself. */
const GZIP_LEVEL = zlib.Z_BEST_SPEED;

/**
 * Backups: a gzip tar of the volume in `<data dir>/backups/<volume id>/<backup id>.tar.gz`.
 * The answer is 202 with the intent recorded (`pending`); the work runs
 * under the volume's lock and ends `done` (size and sha256) or `failed`
 * (reason), each a `volume.backup` event. The archive is written to a
 * `.partial` name, read back and verified (its sha256, a tar readable to the
 * end, every entry one the backup policy allows), then renamed: `done` means
 * restorable. A crash leaves the row pending and the partial file, and the
 * start-time recovery marks it failed and removes the file.
 */
export class VolumeBackups {
  /** Backups still being written, for tests and shutdown. */
  readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly volumes: VolumeService,
    private readonly copies: VolumeCopies,
  ) {}

  private get store() {
    return this.volumes.store;
  }

  start(project: string, name: string): VolumeBackup {
    this.volumes.requireEngine();
    const volume = this.volumes.find(project, name);
    const row: VolumeBackupRow = {
      id: newId(VOLUME_ID_PREFIXES.backup),
      project,
      volume_id: volume.id,
      status: 'pending',
      reason: null,
      size_bytes: null,
      sha256: null,
      created_at: now(),
      finished_at: null,
    };
    this.store.backups.insertUnlessTaken(row);
    this.volumes.inFlight.add(row.id);
    const out = this.represent(row, name);
    this.volumes.deps.bus.emit('volume.backup', { volume: name, backup: out }, project);
    const work = this.volumes.mutex
      .run(volume.id, () => this.write(row))
      .finally(() => {
        this.volumes.inFlight.delete(row.id);
        this.running.delete(row.id);
      });
    this.running.set(row.id, work);
    return out;
  }

  private async write(row: VolumeBackupRow): Promise<void> {
    const volume = this.store.getById(row.volume_id);
    const file = this.volumes.backupFile(row.volume_id, row.id);
    const partial = `${file}.partial`;
    let finished: VolumeBackupRow;
    try {
      if (!volume || volume.status !== 'ready') throw new Error('the volume was deleted before its backup began');
      fs.mkdirSync(this.volumes.backupDir(volume.id), { recursive: true });
      const { bytes, sha256 } = await this.archive(volume, partial);
      await this.readBack(partial, sha256);
      fs.renameSync(partial, file);
      finished = this.store.finishBackup(row.id, {
        status: 'done',
        reason: null,
        size_bytes: bytes,
        sha256,
        finished_at: now(),
      });
    } catch (err) {
      fs.rmSync(partial, { force: true });
      this.volumes.deps.log.warn({ err, backup: row.id }, 'volume backup failed');
      finished = this.store.finishBackup(row.id, {
        status: 'failed',
        reason: (err as Error).message,
        size_bytes: null,
        sha256: null,
        finished_at: now(),
      });
    }
    const name = volume?.name ?? '';
    this.volumes.deps.bus.emit('volume.backup', { volume: name, backup: this.represent(finished, name) }, row.project);
    if (volume && finished.status === 'done') this.prune(volume);
  }

  /**
   * A consistent archive: when a running box writes to the volume, a
   * point-in-time snapshot is taken first (those boxes are paused for the
   * copy only) and the snapshot is archived; otherwise the volume itself is.
   * The engine's archive of a created, never started helper container's
   * mount, gzipped and hashed in the core while written.
   */
  private async archive(volume: VolumeRow, partial: string): Promise<{ bytes: number; sha256: string }> {
    const live = this.volumes.mountsOf(volume.project, volume.name).some((m) => !m.read_only && m.status !== 'stopped');
    const snap = live ? await this.copies.takeSnapshot(volume, true) : null;
    try {
      const source = await this.volumes.deps.items.mountName(snap ?? volume);
      return await this.volumes.deps.helpers.withStopped(
        volume.id,
        [{ volume: source, path: '/v', readOnly: true }],
        async (helper) => {
          const tar = await this.volumes.deps.engine.getArchive(helper, '/v/.');
          const hash = createHash('sha256');
          let bytes = 0;
          const tap = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              hash.update(chunk);
              bytes += chunk.length;
              done(null, chunk);
            },
          });
          await pipeline(tar, createGzip({ level: GZIP_LEVEL }), tap, fs.createWriteStream(partial));
          return { bytes, sha256: hash.digest('hex') };
        },
      );
    } finally {
      if (snap) await this.copies.dropSnapshot(snap);
    }
  }

  /** Whether the written file is what was hashed while writing, unpacks to its end, and holds only what a backup may. */
  private async readBack(file: string, sha256: string): Promise<void> {
    const fd = fs.openSync(file, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if ((await sha256Of(file)) !== sha256)
      throw new Error('the archive read back differs from what was written (a disk or filesystem fault); take another');
    try {
      await verifyArchive(fs.createReadStream(file), { policy: ARCHIVE_POLICIES.backup });
    } catch (err) {
      throw new Error(`the backup could not be restored: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Past the volume's retention the oldest done backups go; failed ones are kept to the same count. */
  private prune(volume: VolumeRow): void {
    const all = this.store.backupsOf(volume.id);
    for (const status of ['done', 'failed'] as const) {
      const list = all.filter((b) => b.status === status);
      for (const old of list.slice(0, Math.max(0, list.length - volume.backup_retention))) this.remove(old, volume);
    }
  }

  private remove(row: VolumeBackupRow, volume: VolumeRow): void {
    fs.rmSync(this.volumes.backupFile(row.volume_id, row.id), { force: true });
    this.store.backups.delete(row.id);
    this.volumes.deps.bus.emit(
      'volume.backup.deleted',
      { volume: volume.name, backup: toVolumeBackup(row, volume.name, false) },
      volume.project,
    );
  }

  /** A done backup whose file is in the data dir is available; one whose file is gone says so. */
  private represent(row: VolumeBackupRow, volume: string): VolumeBackup {
    const available = row.status === 'done' && fs.existsSync(this.volumes.backupFile(row.volume_id, row.id));
    return toVolumeBackup(row, volume, available);
  }

  list(project: string, name: string): VolumeBackup[] {
    const volume = this.volumes.find(project, name);
    return this.store.backupsOf(volume.id).map((b) => this.represent(b, name));
  }

  private find(project: string, name: string, id: string): VolumeBackupRow {
    const volume = this.volumes.find(project, name);
    const row = this.store.backups.getById(id);
    if (!row || row.volume_id !== volume.id)
      throw new ApiError('not_found', `backup "${id}" not found for volume "${name}" in project "${project}"`);
    return row;
  }

  get(project: string, name: string, id: string): VolumeBackup {
    return this.represent(this.find(project, name, id), name);
  }

  /** The archive to stream, with its size and digest. */
  download(
    project: string,
    name: string,
    id: string,
  ): { file: string; size: number; sha256: string; stream: fs.ReadStream } {
    const row = this.volumes.findDoneBackup(project, id, this.volumes.find(project, name));
    const file = this.volumes.backupFile(row.volume_id, row.id);
    try {
      // Opened here, so a file deleted by hand is a problem now rather than a stream error later.
      const fd = fs.openSync(file, 'r');
      return { file, size: fs.fstatSync(fd).size, sha256: row.sha256!, stream: fs.createReadStream(file, { fd }) };
    } catch (err) {
      throw backupProblem(err, id);
    }
  }

  async delete(project: string, name: string, id: string): Promise<void> {
    const first = this.find(project, name, id);
    if (first.status === 'pending')
      throw new ApiError(
        'conflict',
        `backup "${id}" is still being written; wait for its volume.backup event, then delete it`,
      );
    await this.volumes.mutex.run(first.volume_id, async () =>
      this.remove(this.find(project, name, id), this.volumes.find(project, name)),
    );
  }
}
