import { ApiError } from '../../../shared/errors';
import { backupTar, verifyBackupFile } from './backup-archive';
import type { VolumeRow } from './store';
import type { VolumeService } from './service';

/** Where a clone or a restore takes its data from, as recorded in a restore's intent. */
export type Source = { snapshot_id: string } | { backup_id: string } | { volume_id: string };

/** How a source's data is copied into a new engine volume (VolumeCopies). */
export interface Copier {
  copyLive(source: VolumeRow, target: string): Promise<{ method: 'reflink' | 'copy'; bytes: number }>;
  copy(from: string, to: string, owner: string): Promise<{ method: 'reflink' | 'copy'; bytes: number }>;
}

/**
 * The data a clone or a restore starts from: checked before anything is made or touched
 * (`verify`), then copied into a new, empty engine volume (`fill`). The caller holds the lock of
 * the volume the source belongs to (`volumeOf`), so a source cannot be deleted in between.
 */
export class VolumeSources {
  constructor(
    private readonly volumes: VolumeService,
    private readonly copies: Copier,
  ) {}

  private get store() {
    return this.volumes.store;
  }

  private backup(source: { backup_id: string }) {
    const row = this.store.backups.getById(source.backup_id);
    if (!row || row.status !== 'done')
      throw new ApiError('not_found', `backup "${source.backup_id}" was deleted meanwhile`);
    return { row, file: this.volumes.backupFile(row.volume_id, row.id) };
  }

  private snapshot(source: { snapshot_id: string }) {
    const row = this.store.snapshots.getById(source.snapshot_id);
    if (!row) throw new ApiError('not_found', `volume snapshot "${source.snapshot_id}" was deleted meanwhile`);
    return row;
  }

  /** The volume whose lock guards the source. */
  volumeOf(source: Source): string {
    if ('volume_id' in source) return source.volume_id;
    if ('snapshot_id' in source) return this.snapshot(source).volume_id;
    return this.backup(source).row.volume_id;
  }

  /** The store item a clone can be made of in one step (a store volume's, or its snapshot's), or null. */
  async itemOf(source: Source): Promise<string | null> {
    if ('backup_id' in source || !(await this.volumes.deps.items.available())) return null;
    if ('snapshot_id' in source) return this.snapshot(source).item_id;
    return this.store.getById(source.volume_id)?.item_id ?? null;
  }

  /** 404/409 naming what is wrong, before anything is made: the data is there and reads back whole. */
  async verify(source: Source): Promise<void> {
    if ('snapshot_id' in source) {
      const snap = this.snapshot(source);
      if (!(await this.volumes.deps.items.exists(snap)))
        throw new ApiError(
          'conflict',
          `the data of volume snapshot "${snap.id}" is missing (removed outside Boxdesk); nothing was changed. Delete this snapshot`,
        );
    } else if ('backup_id' in source) {
      const { row, file } = this.backup(source);
      await verifyBackupFile(file, row.sha256, row.id);
    } else {
      const from = this.store.getById(source.volume_id);
      if (!from || from.status !== 'ready') throw new ApiError('not_found', 'the source volume was deleted meanwhile');
    }
  }

  /** Fills the new, empty engine volume `target` from a verified source; answers the bytes it now holds. */
  async fill(source: Source, target: string, owner: string): Promise<number> {
    if ('volume_id' in source) {
      const from = this.store.getById(source.volume_id);
      if (!from || from.status !== 'ready') throw new ApiError('not_found', 'the source volume was deleted meanwhile');
      return (await this.copies.copyLive(from, target)).bytes;
    }
    if ('snapshot_id' in source)
      return (await this.copies.copy(await this.volumes.deps.items.mountName(this.snapshot(source)), target, owner))
        .bytes;
    const { row, file } = this.backup(source);
    const { tar, done } = backupTar(file, row.sha256, row.id);
    const [put, read] = await Promise.allSettled([
      this.volumes.deps.helpers.withStopped(owner, [{ volume: target, path: '/dst', readOnly: false }], (c) =>
        this.volumes.deps.engine.putArchive(c, '/dst', tar),
      ),
      done,
    ]);
    // The reader's problem (a changed file, a refused entry) is the cause; the engine only saw the stream fail.
    if (read.status === 'rejected') throw read.reason;
    if (put.status === 'rejected') throw put.reason;
    return this.volumes.bytesIn(target, owner);
  }
}
