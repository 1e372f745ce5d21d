import { ApiError } from '../../../shared/errors';
import type { Volume, VolumeCreate, VolumeRestore, VolumeSnapshot } from '../../../shared/schemas/volumes';
import { newId, now } from '../ids';
import { COPY_SCRIPT, VOLUME_ROLES } from './helpers';
import { VolumeRestores, type SnapshotFinder } from './restores';
import { VOLUME_ID_PREFIXES, type VolumeService } from './service';
import { VolumeSources, type Copier, type Source } from './sources';
import { regionForCreate } from './volume-regions';
import { toVolumeSnapshot, type VolumeRow, type VolumeSnapshotRow } from './store';
import { snapshotOwner, type Measured } from './volume-items';

/**
 * Copies of a volume's data: snapshots (store snapshots, or for volumes made before the store
 * engine volumes filled by a helper's cp), clones (from_volume|from_snapshot|from_backup) and,
 * through `restores`, restores.
 */
export class VolumeCopies implements Copier, SnapshotFinder {
  readonly sources: VolumeSources;
  readonly restores: VolumeRestores;

  constructor(private readonly volumes: VolumeService) {
    this.sources = new VolumeSources(volumes, this);
    this.restores = new VolumeRestores(volumes, this, this.sources);
  }

  private get store() {
    return this.volumes.store;
  }

  private get deps() {
    return this.volumes.deps;
  }

  /**
   * Copies a live volume into the engine volume `target`, its writers paused (withWritersPaused).
   * The caller holds the volume's lock.
   */
  copyLive(source: VolumeRow, target: string): Promise<{ method: 'reflink' | 'copy'; bytes: number }> {
    return this.withWritersPaused(source, async () =>
      this.copy(await this.deps.items.mountName(source), target, source.id),
    );
  }

  /**
   * Runs `work` (a copy or a store snapshot of the volume) with the running boxes that mount it
   * read-write paused (their container ids recorded first, so a crash thaws them at start): the
   * copy is one instant of the volume. The caller holds the volume's lock.
   */
  async withWritersPaused<T>(source: VolumeRow, work: () => Promise<T>): Promise<T> {
    const writers = this.volumes.mountsOf(source.project, source.name).filter((m) => !m.read_only);
    const ids = [...new Set(writers.map((w) => w.box_id))].sort();
    const nest = async (i: number): Promise<T> => {
      if (i < ids.length) return this.deps.boxes.withLock(ids[i]!, () => nest(i + 1));
      const running = ids
        .map((id) => this.deps.boxes.byId(id))
        .filter((b) => b?.status === 'running' && b.container_id);
      const containers = running.map((b) => b!.container_id!);
      this.store.update(source.id, { paused: containers.length ? JSON.stringify(containers) : null });
      try {
        for (const c of containers) await this.deps.engine.pauseContainer(c);
        return await work();
      } finally {
        for (const c of containers) await this.deps.engine.unpauseContainer(c).catch(() => undefined);
        this.store.update(source.id, { paused: null });
      }
    };
    return nest(0);
  }

  /** Engine volume to engine volume through a helper (see COPY_SCRIPT). */
  async copy(from: string, to: string, owner: string): Promise<{ method: 'reflink' | 'copy'; bytes: number }> {
    const out = await this.deps.helpers.run(
      owner,
      [
        { volume: from, path: '/src', readOnly: true },
        { volume: to, path: '/dst', readOnly: false },
      ],
      COPY_SCRIPT,
    );
    const [method, bytes] = out.trim().split(/\s+/).slice(-2);
    return { method: method === 'reflink' ? 'reflink' : 'copy', bytes: Number.parseInt(bytes ?? '0', 10) || 0 };
  }

  snapshotRow(volume: VolumeRow, internal: boolean): VolumeSnapshotRow {
    const id = newId(VOLUME_ID_PREFIXES.snapshot);
    return {
      id,
      project: volume.project,
      volume_id: volume.id,
      engine_name: `boxdesk-vsnap-${id.slice(6)}`,
      status: 'pending',
      size_bytes: 0,
      method: 'copy',
      internal: internal ? 1 : 0,
      created_at: now(),
      item_id: volume.item_id ? this.deps.items.newItemId() : null,
      exclusive_bytes: null,
    };
  }

  /**
   * A point-in-time copy: of a store volume, a `snapshot` of its item (owner
   * `volume-snapshot:<id>`); of a volume made before the store, its own engine volume filled by a
   * helper. The caller holds the volume's lock.
   */
  async takeSnapshot(volume: VolumeRow, internal: boolean): Promise<VolumeSnapshotRow> {
    const row = this.snapshotRow(volume, internal);
    // The intent, on disk before the engine is asked: a crash leaves it pending, removed at start.
    this.store.snapshots.insertUnlessTaken(row);
    this.volumes.inFlight.add(row.id);
    try {
      return row.item_id ? await this.snapshotItem(volume, row, row.item_id) : await this.copySnapshot(volume, row);
    } catch (err) {
      await this.dropSnapshot(row);
      throw err;
    } finally {
      this.volumes.inFlight.delete(row.id);
    }
  }

  private async copySnapshot(volume: VolumeRow, row: VolumeSnapshotRow): Promise<VolumeSnapshotRow> {
    await this.deps.engine.createVolume(row.engine_name, this.volumes.labels(volume, VOLUME_ROLES.snapshot, row.id));
    const { method, bytes } = await this.copyLive(volume, row.engine_name);
    this.store.update(volume.id, { size_bytes: bytes, measured_at: now() });
    return this.store.markSnapshotReady(row.id, {
      size_bytes: bytes,
      method,
      engine_name: row.engine_name,
      exclusive_bytes: null,
    });
  }

  private async snapshotItem(volume: VolumeRow, row: VolumeSnapshotRow, id: string): Promise<VolumeSnapshotRow> {
    const { items } = this.deps;
    const labels = this.volumes.labels(volume, VOLUME_ROLES.snapshot, row.id);
    const engineName = await this.withWritersPaused(volume, () =>
      items.snapshot(volume.item_id!, id, snapshotOwner(row.id), labels),
    );
    const sizes = await items.measure([volume.item_id!, id]);
    const own = sizes.get(volume.item_id!);
    if (own) this.store.update(volume.id, { ...own, measured_at: now() });
    const snap = sizes.get(id) ?? { size_bytes: 0, exclusive_bytes: null };
    return this.store.markSnapshotReady(row.id, { ...snap, method: items.method, engine_name: engineName });
  }

  async dropSnapshot(row: VolumeSnapshotRow): Promise<void> {
    await this.deps.items.remove(row).catch(() => undefined);
    this.store.snapshots.delete(row.id);
  }

  async snapshot(project: string, name: string): Promise<VolumeSnapshot> {
    this.volumes.requireEngine();
    const first = this.volumes.find(project, name);
    const row = await this.volumes.mutex.run(first.id, () =>
      this.takeSnapshot(this.volumes.find(project, name), false),
    );
    this.volumes.emitUpdated(first.id);
    return toVolumeSnapshot(row, name);
  }

  listSnapshots(project: string, name: string): VolumeSnapshot[] {
    const volume = this.volumes.find(project, name);
    return this.store.snapshotsOf(volume.id).map((s) => toVolumeSnapshot(s, name));
  }

  /** A ready, listed snapshot of the project (of this volume when given), or 404. */
  findSnapshot(project: string, id: string, volume?: VolumeRow): VolumeSnapshotRow {
    const row = this.store.snapshots.getById(id);
    if (
      !row ||
      row.project !== project ||
      row.status !== 'ready' ||
      row.internal ||
      (volume && row.volume_id !== volume.id)
    ) {
      throw new ApiError(
        'not_found',
        `volume snapshot "${id}" not found${volume ? ` for volume "${volume.name}"` : ''} in project "${project}"`,
      );
    }
    return row;
  }

  async deleteSnapshot(project: string, name: string, id: string): Promise<void> {
    const first = this.volumes.find(project, name);
    await this.volumes.mutex.run(first.id, async () => {
      const row = this.findSnapshot(project, id, this.volumes.find(project, name));
      this.volumes.requireEngine();
      await this.deps.items.remove(row);
      this.store.snapshots.delete(row.id);
    });
    this.volumes.emitUpdated(first.id);
  }

  /** A clone source of the project, resolved before anything is made (404 / 409 at once). */
  private resolveSource(project: string, input: VolumeCreate): Source | null {
    const given = [input.from_volume, input.from_snapshot, input.from_backup].filter((v) => v !== undefined);
    if (given.length > 1) {
      throw new ApiError('invalid_body', 'give at most one of from_volume, from_snapshot, from_backup', {
        errors: [{ path: 'body', message: 'from_volume, from_snapshot and from_backup exclude each other' }],
      });
    }
    if (input.from_volume !== undefined) return { volume_id: this.volumes.find(project, input.from_volume).id };
    if (input.from_snapshot !== undefined) return { snapshot_id: this.findSnapshot(project, input.from_snapshot).id };
    if (input.from_backup !== undefined)
      return { backup_id: this.volumes.findDoneBackup(project, input.from_backup).id };
    return null;
  }

  /**
   * POST /volumes: an empty volume, or a clone filled before the answer. A clone's source is
   * checked before anything is made, under the lock of the volume it belongs to (so a backup or
   * snapshot cannot be deleted meanwhile); a failed fill leaves nothing.
   */
  async create(project: string, input: VolumeCreate): Promise<Volume> {
    const source = this.resolveSource(project, input);
    if (!source) return this.volumes.represent(await this.volumes.createEmpty(project, input, 'ready'));
    const fromVolume = input.from_volume !== undefined ? this.volumes.find(project, input.from_volume) : null;
    regionForCreate(this.volumes.deps.regions, input, fromVolume);
    this.volumes.requireEngine();
    if (this.store.get(project, input.name))
      throw new ApiError('already_exists', `volume "${input.name}" already exists in project "${project}"`);
    const id = await this.volumes.mutex.run(this.sources.volumeOf(source), async () => {
      await this.sources.verify(source);
      const from = await this.sources.itemOf(source);
      const row = from
        ? this.volumes.newRecord(project, input, this.deps.items.newItemId(), 'creating')
        : await this.volumes.createEmpty(project, input, 'creating');
      try {
        const sizes = from ? await this.cloneItem(row, source, from) : await this.fillNew(row, source);
        this.store.update(row.id, { status: 'ready', ...sizes, measured_at: now() });
        return row.id;
      } catch (err) {
        await this.deps.items.remove(this.store.getById(row.id) ?? row).catch(() => undefined);
        this.store.delete(row.id);
        throw err;
      } finally {
        this.volumes.inFlight.delete(row.id);
      }
    });
    const out = this.volumes.represent(this.store.getById(id)!);
    this.deps.bus.emit('volume.created', { volume: out }, project);
    return out;
  }

  /** A store clone of the source's item (a live volume's writers paused for that instant). */
  private async cloneItem(row: VolumeRow, source: Source, from: string): Promise<Measured> {
    const { items } = this.deps;
    const clone = (owner: string, labels: Record<string, string>, sizeGb: number | null) =>
      items.clone(from, row.item_id!, owner, labels, sizeGb);
    const live = 'volume_id' in source ? this.store.getById(source.volume_id) : undefined;
    await (live
      ? this.withWritersPaused(live, () => this.volumes.makeItem(row, clone))
      : this.volumes.makeItem(row, clone));
    return this.volumes.sizeOf(row);
  }

  /** The new volume (an empty item, or a plain engine volume) filled by a helper's copy or from a backup. */
  private async fillNew(row: VolumeRow, source: Source): Promise<Measured> {
    const bytes = await this.sources.fill(source, row.engine_name, row.id);
    return row.item_id ? this.volumes.sizeOf(row) : { size_bytes: bytes, exclusive_bytes: null };
  }

  restore(project: string, name: string, input: VolumeRestore): Promise<Volume> {
    return this.restores.restore(project, name, input);
  }
}
