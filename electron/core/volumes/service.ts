import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../../shared/errors';
import type { DataMount } from '../../../shared/schemas/box';
import {
  DEFAULT_BACKUP_RETENTION,
  type Volume,
  type VolumeAttach,
  type VolumeCreate,
} from '../../../shared/schemas/volumes';
import { checkDataMounts, configOf, type BoxMount, type BoxRow, type BoxesPort } from '../boxes/port';
import { KeyedMutex } from '../keyed-mutex';
import type { ContainerEngine } from '../engine/container-engine';
import type { EngineMonitor } from '../engine/engine-monitor';
import type { EventBus } from '../events/event-bus';
import { newId, now } from '../ids';
import { nameList } from '../name-list';
import { MEASURE_SCRIPT, VOLUME_ROLES, type VolumeHelpers } from './helpers';
import { REGION_LABEL, type Regions } from '../engine/regions/regions';
import { regionForCreate, requireSameRegion } from './volume-regions';
import { toVolume, type VolumeBackupRow, type VolumeRow, type VolumeStore } from './store';
import { volumeOwner, type Measured, type VolumeItems } from './volume-items';

export interface VolumeServiceDeps {
  store: VolumeStore;
  boxes: Pick<BoxesPort, 'find' | 'byId' | 'withLock' | 'replaceRoot' | 'mountsOf' | 'setDataMounts'>;
  engine: ContainerEngine;
  monitor: EngineMonitor;
  helpers: VolumeHelpers;
  /** The copy-on-write store, where volumes made since it keep their data. */
  items: VolumeItems;
  /** The engines, each a region; a volume lives in one. */
  regions: Regions;
  bus: EventBus;
  instanceId: string;
  dataDir: string;
  log: FastifyBaseLogger;
}

/** Ids of volumes, their snapshots and their backups. */
export const VOLUME_ID_PREFIXES = { volume: 'vol', snapshot: 'vsnap', backup: 'vbak' } as const;

/** How stale a mounted volume's size may be before a read measures it again (in the background). */
const MEASURE_EVERY_MS = 60_000;

/**
 * Data volumes: engine volumes labelled like boxes that outlive them. The
 * record is the desired state; every operation on one volume is serialised
 * (`mutex`, keyed by its id) and takes the boxes it touches after it, in id
 * order, so locks never cross.
 */
export class VolumeService {
  readonly mutex = new KeyedMutex();
  /** Ids (volumes, snapshots, backups) whose operation runs in this process: the start-time recovery leaves them alone. */
  readonly inFlight = new Set<string>();
  /** Rules another resource sets on deleting a volume (a service's spec naming it); each throws to refuse. */
  private readonly deleteGuards: ((row: VolumeRow) => void)[] = [];
  private readonly measuring = new Set<string>();

  constructor(readonly deps: VolumeServiceDeps) {
    // A box created or deleted with data_mounts changes those volumes' mounts.
    deps.bus.subscribe((event) => {
      if (event.type !== 'box.created' && event.type !== 'box.deleted') return;
      for (const m of event.data.box.data_mounts ?? []) {
        const row = this.store.get(event.data.box.project, m.name);
        if (row) this.emitUpdated(row.id);
      }
    });
  }

  get store(): VolumeStore {
    return this.deps.store;
  }

  backupDir(volumeId: string): string {
    return path.join(this.deps.dataDir, 'backups', volumeId);
  }

  backupFile(volumeId: string, backupId: string): string {
    return path.join(this.backupDir(volumeId), `${backupId}.tar.gz`);
  }

  /** A done backup of the project (of this volume when given), or 404. */
  findDoneBackup(project: string, id: string, volume?: VolumeRow): VolumeBackupRow {
    const row = this.store.backups.getById(id);
    if (!row || row.project !== project || (volume && row.volume_id !== volume.id)) {
      throw new ApiError(
        'not_found',
        `backup "${id}" not found${volume ? ` for volume "${volume.name}"` : ''} in project "${project}"`,
      );
    }
    if (row.status !== 'done')
      throw new ApiError(
        'conflict',
        `backup "${id}" is ${row.status}${row.reason ? ` (${row.reason})` : ''}; only a done backup can be restored or downloaded`,
      );
    return row;
  }

  labels(row: Pick<VolumeRow, 'id' | 'project' | 'name'>, role: string, id = row.id): Record<string, string> {
    return {
      'boxdesk.id': id,
      'boxdesk.project': row.project,
      'boxdesk.volume': row.name,
      'boxdesk.instance': this.deps.instanceId,
      'boxdesk.role': role,
      'boxdesk.owner': row.id,
    };
  }

  requireEngine(): void {
    this.deps.monitor.requireUp();
  }

  /** Who mounts the volume: the boxes' data_mounts are the one record of a mount. */
  mountsOf(project: string, name: string): BoxMount[] {
    return this.deps.boxes.mountsOf(project, name);
  }

  /** A ready volume of the project, or 404. */
  find(project: string, name: string): VolumeRow {
    const row = this.store.get(project, name);
    if (!row || row.status !== 'ready')
      throw new ApiError(
        'not_found',
        `volume "${name}" not found in project "${project}"; GET /v1/projects/${project}/volumes lists them`,
      );
    return row;
  }

  represent(row: VolumeRow): Volume {
    const mounts = this.mountsOf(row.project, row.name);
    if (
      mounts.some((m) => m.status === 'running') &&
      Date.now() - Date.parse(row.measured_at ?? row.created_at) > MEASURE_EVERY_MS
    )
      void this.measureLater(row.id);
    return toVolume(
      row,
      mounts.map(({ box, path: p, read_only }) => ({ box, path: p, read_only })),
      this.deps.items.sizeEnforced(row),
    );
  }

  get(project: string, name: string): Volume {
    return this.represent(this.find(project, name));
  }

  list(project: string): Volume[] {
    return this.store.list(project).map((row) => this.represent(row));
  }

  emitUpdated(id: string): void {
    const row = this.store.getById(id);
    if (row?.status === 'ready') this.deps.bus.emit('volume.updated', { volume: this.represent(row) }, row.project);
  }

  /**
   * Measures a volume and records it: a store item by the store's usage, a plain engine volume by a
   * helper (read-only mount). The caller need not hold the lock.
   */
  async measure(row: VolumeRow): Promise<number> {
    const sizes = await this.sizeOf(row);
    this.store.update(row.id, { ...sizes, measured_at: now() });
    return sizes.size_bytes;
  }

  async sizeOf(row: Pick<VolumeRow, 'id' | 'item_id' | 'engine_name'>): Promise<Measured> {
    if (!row.item_id) return { size_bytes: await this.bytesIn(row.engine_name, row.id), exclusive_bytes: null };
    return (await this.deps.items.measure([row.item_id])).get(row.item_id) ?? { size_bytes: 0, exclusive_bytes: null };
  }

  /** The bytes an engine volume holds, measured by a helper owned by `owner`. */
  async bytesIn(engineName: string, owner: string): Promise<number> {
    const out = await this.deps.helpers.run(
      owner,
      [{ volume: engineName, path: '/dst', readOnly: true }],
      MEASURE_SCRIPT,
    );
    return Number.parseInt(out.trim(), 10) || 0;
  }

  /** An engine volume name for the record: the first, or (with a suffix) one filled beside it by a restore. */
  engineName(row: Pick<VolumeRow, 'id' | 'project' | 'name'>, suffix?: string): string {
    return `boxdesk-${row.project}-${row.name}-${row.id.slice(4, 12)}${suffix ? `-${suffix}` : ''}`;
  }

  private async measureLater(id: string): Promise<void> {
    if (this.measuring.has(id)) return;
    this.measuring.add(id);
    try {
      await this.mutex.run(id, async () => {
        const row = this.store.getById(id);
        if (row?.status !== 'ready') return;
        const before = row.size_bytes;
        if ((await this.measure(row)) !== before) this.emitUpdated(id);
      });
    } catch (err) {
      this.deps.log.warn({ err, volume: id }, 'could not measure a volume');
    } finally {
      this.measuring.delete(id);
    }
  }

  /**
   * The record of a new volume, `creating` while its data is made when it has a store item (find
   * does not see it; a crash drops it at start). Without a store driver: a plain engine volume.
   */
  newRecord(
    project: string,
    input: VolumeCreate,
    itemId: string | null,
    status: VolumeRow['status'],
    region: string | null = null,
  ): VolumeRow {
    const id = newId(VOLUME_ID_PREFIXES.volume);
    const row: VolumeRow = {
      id,
      project,
      name: input.name,
      engine_name: itemId ? '' : this.engineName({ id, project, name: input.name }),
      status: itemId ? 'creating' : status,
      size_gb: input.size_gb ?? null,
      size_bytes: 0,
      measured_at: now(),
      backup_retention: input.backup_retention ?? DEFAULT_BACKUP_RETENTION,
      pending_restore: null,
      paused: null,
      created_at: now(),
      item_id: itemId,
      exclusive_bytes: itemId ? 0 : null,
      region,
    };
    if (!this.store.insert(row))
      throw new ApiError('already_exists', `volume "${input.name}" already exists in project "${project}"`);
    this.inFlight.add(id);
    return row;
  }

  /** A volume's item (owner `volume:<id>`, labelled as the volume, capped at size_gb), recorded with its engine volume. */
  async makeItem(
    row: VolumeRow,
    make: (owner: string, labels: Record<string, string>, sizeGb: number | null) => Promise<string>,
  ) {
    const engineName = await make(volumeOwner(row.id), this.labels(row, VOLUME_ROLES.volume), row.size_gb);
    return this.store.update(row.id, { engine_name: engineName });
  }

  /** Makes the record and its data: an empty store item, or a plain engine volume. Clones are filled by VolumeCopies.create. */
  async createEmpty(project: string, input: VolumeCreate, status: VolumeRow['status']): Promise<VolumeRow> {
    this.requireEngine();
    const region = regionForCreate(this.deps.regions, input, null);
    // Outside the first region, a plain engine volume there (the store is the first region's).
    const itemId = region === this.deps.regions.first.name ? await this.deps.items.newId() : null;
    let row = this.newRecord(project, input, itemId, status, region);
    try {
      if (itemId) {
        row = await this.makeItem(row, (owner, labels, sizeGb) =>
          this.deps.items.create(itemId, owner, labels, sizeGb),
        );
        row = this.store.update(row.id, { status });
      } else
        await this.deps.engine.createVolume(row.engine_name, {
          ...this.labels(row, VOLUME_ROLES.volume),
          [REGION_LABEL]: region,
        });
    } catch (err) {
      await this.deps.items.remove(row).catch(() => undefined);
      this.store.delete(row.id);
      this.inFlight.delete(row.id);
      throw err;
    }
    if (status === 'ready') {
      this.inFlight.delete(row.id);
      this.deps.bus.emit('volume.created', { volume: this.represent(row) }, project);
    }
    return row;
  }

  /** 409 while a box mounts it, naming them. Its snapshots and backups go with it. */
  guardDeletes(guard: (row: VolumeRow) => void): void {
    this.deleteGuards.push(guard);
  }

  async delete(project: string, name: string): Promise<void> {
    const first = this.find(project, name);
    await this.mutex.run(first.id, async () => {
      const row = this.find(project, name);
      const mounts = this.mountsOf(project, name);
      if (mounts.length) {
        const boxes = nameList(mounts.map((m) => `"${m.box}"`));
        throw new ApiError(
          'conflict',
          `volume "${name}" is mounted by box${mounts.length > 1 ? 'es' : ''} ${boxes}; detach it (box volume detach ${name} BOX) or delete those boxes first`,
        );
      }
      for (const guard of this.deleteGuards) guard(row);
      this.requireEngine();
      // The intent first: a crash from here on is finished at start.
      this.store.update(row.id, { status: 'deleting' });
      await this.finishDelete(row);
    });
  }

  async finishDelete(row: VolumeRow): Promise<void> {
    const gone = toVolume(row, [], this.deps.items.sizeEnforced(row));
    for (const snap of this.store.snapshots.all().filter((s) => s.volume_id === row.id)) {
      await this.deps.items.remove(snap);
      this.store.snapshots.delete(snap.id);
    }
    await this.deps.items.remove(row);
    fs.rmSync(this.backupDir(row.id), { recursive: true, force: true });
    for (const b of this.store.backupsOf(row.id)) this.store.backups.delete(b.id);
    this.store.delete(row.id);
    this.deps.bus.emit('volume.deleted', { volume: gone }, row.project);
  }

  /** Runs `work` holding the volume's lock, then the given boxes' locks in id order. */
  withLocks<T>(volumeId: string, boxIds: string[], work: () => Promise<T>): Promise<T> {
    const ids = [...new Set(boxIds)].sort();
    const nest = (i: number): Promise<T> =>
      i === ids.length ? work() : this.deps.boxes.withLock(ids[i]!, () => nest(i + 1));
    return this.mutex.run(volumeId, () => nest(0));
  }

  attach(project: string, name: string, input: VolumeAttach): Promise<Volume> {
    const mount: DataMount = { name, path: input.path, read_only: input.read_only ?? false };
    return this.changeMounts(project, name, input.box, (current) => {
      const existing = current.find((m) => m.name === name);
      if (existing)
        throw new ApiError(
          'conflict',
          `volume "${name}" is already mounted in box "${input.box}" at ${existing.path}; detach it first to move it`,
        );
      return checkDataMounts([...current, mount], 'body');
    });
  }

  detach(project: string, name: string, boxName: string): Promise<Volume> {
    return this.changeMounts(project, name, boxName, (current) => {
      if (!current.some((m) => m.name === name))
        throw new ApiError('conflict', `volume "${name}" is not mounted in box "${boxName}"`);
      return current.filter((m) => m.name !== name);
    });
  }

  /**
   * The engine cannot change a live container's mounts: the box's container
   * is recreated with its root kept (boxes/recreate.ts); a running box runs
   * again afterwards, a stopped one stays stopped.
   */
  private async changeMounts(
    project: string,
    name: string,
    boxName: string,
    next: (current: DataMount[]) => DataMount[],
  ): Promise<Volume> {
    const volume = this.find(project, name);
    const firstBox = this.deps.boxes.find(project, boxName);
    await this.withLocks(volume.id, [firstBox.id], async () => {
      this.find(project, name);
      const box = this.deps.boxes.find(project, boxName);
      if (box.id !== firstBox.id)
        throw new ApiError('conflict', `box "${boxName}" was replaced while this request waited; try again`);
      if (!['running', 'stopped'].includes(box.status))
        throw new ApiError(
          'conflict',
          `cannot change the mounts of box "${boxName}" while it is ${box.status}; wait until it is running or stopped`,
        );
      this.requireEngine();
      const current = box.data_mounts ? (JSON.parse(box.data_mounts) as DataMount[]) : [];
      const mounts = next(current);
      if (mounts.length > current.length) requireSameRegion(volume, boxName, configOf(box).region);
      this.setMounts(box, mounts);
      try {
        await this.deps.boxes.replaceRoot(this.deps.boxes.byId(box.id)!, 'current');
      } catch (err) {
        // Not yet recorded as a swap in flight: nothing changed, so the mounts are what they were.
        if (!this.deps.boxes.byId(box.id)?.pending_root) this.setMounts(box, current);
        throw err;
      }
    });
    const row = this.find(project, name);
    const out = this.represent(row);
    this.deps.bus.emit('volume.updated', { volume: out }, project);
    return out;
  }

  private setMounts(box: BoxRow, mounts: DataMount[]): void {
    this.deps.boxes.setDataMounts(box.id, mounts);
  }
}
