import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { KeyedMutex } from '../keyed-mutex';
import { getMeta, setMeta, type Db } from '../db/database';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import { now, randomBase32 } from '../ids';
import { detectDriver, storeDir, type StorageSettings } from './detect';
import { ItemRecords, type ItemRow } from './records';
import { reconcileItems, type ReconcileReport } from './reconcile';
import { SpaceGauge } from './space-gauge';
import {
  StorageError,
  checkItemId,
  type ItemMount,
  type ItemUsage,
  type StorageCapabilities,
  type StorageDriver,
  type StorageDriverName,
} from './storage-driver';

export interface StorageReport {
  driver: StorageDriverName | null;
  path: string | null;
  size_bytes: number | null;
  used_bytes: number | null;
  reason?: string;
}

export interface StorageDeps {
  db: Db;
  engine: ContainerEngine;
  instanceId: string;
  dataDir: string;
  settings: StorageSettings;
  defaultImage: () => Promise<string>;
  log: FastifyBaseLogger;
  /** Tests only: called after an intent is recorded and after the driver is done, before the record says so. */
  onStep?: (step: 'intent' | 'done', op: string, id: string) => void;
}

interface Placement {
  /** Who holds the item (`box:box_…`, `snapshot:snap_…`, `volume:vol_…`). */
  owner: string;
  /** A caller-chosen id (so its own record can name it before the item exists); else a new one. */
  id?: string;
  /** The owner's labels for the item's engine volume (a data volume's, so it is found as the volume's). */
  labels?: Record<string, string>;
}

const labelsOf = (row: ItemRow): Record<string, string> =>
  row.labels ? (JSON.parse(row.labels) as Record<string, string>) : {};

export function newItemId(): string {
  return `st_${randomBase32(20)}`;
}

/**
 * The copy-on-write store of one engine host: the chosen driver behind records and intents.
 * Every create, snapshot, clone, restore and delete is recorded before the driver is asked,
 * and `start()` reconciles what a crash cut short before anything else uses the store: no
 * item without its record (removed), no record without its item (reported), no half-done
 * operation (undone, or finished for deletes and restores). Operations on one item are
 * serialised (a clone holds its source's turn too).
 */
export class Storage {
  private driver: StorageDriver | null = null;
  private reasons: string[] = [];
  private readonly space: SpaceGauge;
  private starting: Promise<void> | null = null;
  private readonly records: ItemRecords;
  private readonly mutex = new KeyedMutex();

  constructor(private readonly deps: StorageDeps) {
    this.records = new ItemRecords(deps.db);
    this.space = new SpaceGauge(deps.log);
  }

  /** Picks and starts the driver (once), then reconciles; called whenever the engine comes up. */
  start(): Promise<void> {
    this.starting ??= this.startOnce().finally(() => (this.starting = null));
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    const { db, engine, instanceId, dataDir, settings, log } = this.deps;
    if (this.driver) {
      await this.reconcileWith(this.driver);
      return;
    }
    const holding = this.records.all()[0]?.driver ?? null;
    const found = await detectDriver(
      {
        engine,
        instanceId,
        storeDir: storeDir(dataDir),
        log,
        defaultImage: this.deps.defaultImage,
        meta: { get: (k) => getMeta(db, k), set: (k, v) => setMeta(db, k, v) },
      },
      settings,
      holding,
    );
    this.reasons = found.reasons;
    if (!found.driver) {
      log.warn({ reasons: found.reasons }, 'no copy-on-write store driver works here');
      return;
    }
    // Reported (and used) only once reconciled. Its space is measured when first asked (see SpaceGauge).
    try {
      await this.reconcileWith(found.driver);
    } catch (err) {
      await found.driver.stop().catch(() => undefined);
      this.reasons = [...found.reasons, `${found.driver.name}: could not reconcile: ${(err as Error).message}`];
      throw err;
    }
    this.driver = found.driver;
    log.info({ driver: this.driver.name, fallbackReasons: found.reasons }, 'copy-on-write store ready');
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    await this.space.idle();
    await this.driver?.stop();
  }

  /** What GET /v1/system says of the store: its space measured if never yet, else refreshed when stale. */
  async measuredReport(): Promise<StorageReport> {
    if (this.driver) await this.space.current(this.driver);
    return this.report();
  }

  /** The store as last measured. */
  report(): StorageReport {
    const space = this.space.value;
    const reason = this.reasons.length ? this.reasons.join('; ') : undefined;
    return {
      driver: this.driver?.name ?? null,
      path: space?.path ?? null,
      size_bytes: space?.sizeBytes ?? null,
      used_bytes: space?.usedBytes ?? null,
      ...(reason
        ? { reason }
        : this.driver
          ? {}
          : { reason: this.starting ? 'starting' : 'the store has not started (is the engine up?)' }),
    };
  }

  /** Whether the store can take new items: waits for a start in flight (an owner keeps its old ways without one). */
  async available(): Promise<boolean> {
    if (this.starting) await this.starting.catch(() => undefined);
    return this.driver !== null;
  }

  /** Whether quotas are enforced (`storage_enforced`). */
  get enforcesQuota(): boolean {
    return this.driver?.capabilities.quota ?? false;
  }

  /** What the driver can do; null while no driver works. */
  get capabilities(): StorageCapabilities | null {
    return this.driver?.capabilities ?? null;
  }

  get driverName(): StorageDriverName | null {
    return this.driver?.name ?? null;
  }

  /** Waits until what deletes freed shows in the space numbers (then refreshes them). */
  async settle(): Promise<void> {
    await (await this.ready()).settle?.();
    await this.refreshSpace();
  }

  /** The ids the backend holds, whatever the records say (reconciliation's view). */
  async idsInStore(): Promise<string[]> {
    return (await this.ready()).list();
  }

  async refreshSpace(): Promise<void> {
    if (this.driver) await this.space.refresh(this.driver);
  }

  /** The driver, once a start in flight is done (operations that arrive meanwhile wait for it). */
  private async ready(): Promise<StorageDriver> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (!this.driver)
      throw new StorageError('unavailable', this.report().reason ?? 'the copy-on-write store is not available');
    return this.driver;
  }

  get(id: string): ItemRow | undefined {
    return this.records.getById(id);
  }

  list(owner?: string): ItemRow[] {
    return owner ? this.records.byOwner(owner) : this.records.all();
  }

  private readyItem(id: string): ItemRow {
    const row = this.records.getById(id);
    if (!row || row.status !== 'ready') throw new StorageError('not_found', `no store item ${id}`);
    return row;
  }

  /** Records the intent, asks the driver, then records the item ready (or forgets it when the driver failed). */
  private async make(
    op: string,
    kind: ItemRow['kind'],
    place: Placement,
    parentId: string | null,
    quotaBytes: number | null,
    work: (driver: StorageDriver, id: string, labels: Record<string, string>) => Promise<void>,
  ): Promise<ItemRow> {
    const driver = await this.ready();
    const id = checkItemId(place.id ?? newItemId());
    const row: ItemRow = {
      id,
      kind,
      owner: place.owner,
      parent_id: parentId,
      driver: driver.name,
      quota_bytes: quotaBytes,
      status: 'creating',
      pending: null,
      created_at: now(),
      labels: place.labels ? JSON.stringify(place.labels) : null,
    };
    this.records.insertRow(row);
    this.deps.onStep?.('intent', op, id);
    try {
      await work(driver, id, place.labels ?? {});
    } catch (err) {
      await driver.delete(id).catch(() => undefined);
      this.records.delete(id);
      throw err;
    }
    this.deps.onStep?.('done', op, id);
    this.records.setStatus(id, 'ready');
    return { ...row, status: 'ready' };
  }

  create(place: Placement & { quotaBytes?: number | null }): Promise<ItemRow> {
    const quota = place.quotaBytes ?? null;
    return this.make('create', 'volume', place, null, quota, (d, id, l) => d.create(id, quota, l));
  }

  /** A read-only point-in-time copy of a live item or a snapshot. */
  snapshot(sourceId: string, place: Placement): Promise<ItemRow> {
    return this.mutex.run(sourceId, () => {
      this.readyItem(sourceId);
      return this.make('snapshot', 'snapshot', place, sourceId, null, (d, id, l) => d.snapshot(sourceId, id, l));
    });
  }

  /** A writable copy (a fork's workspace, a volume's clone) of a live item or a snapshot. */
  clone(sourceId: string, place: Placement & { quotaBytes?: number | null }): Promise<ItemRow> {
    const quota = place.quotaBytes ?? null;
    return this.mutex.run(sourceId, () => {
      this.readyItem(sourceId);
      return this.make('clone', 'volume', place, sourceId, quota, (d, id, l) => d.clone(sourceId, id, quota, l));
    });
  }

  /** The writable item `id` becomes a copy of `snapshotId`, in one step where the driver can; its quota stays. */
  restore(id: string, snapshotId: string): Promise<void> {
    return this.mutex.run(id, async () => {
      const row = this.readyItem(id);
      if (row.kind !== 'volume') throw new StorageError('invalid', `${id} is a snapshot: restore a writable item`);
      if (this.readyItem(snapshotId).kind !== 'snapshot')
        throw new StorageError('invalid', `${snapshotId} is not a snapshot`);
      const driver = await this.ready();
      const pending = { snapshot_id: snapshotId, scratch_id: newItemId() };
      this.records.setStatus(id, 'restoring', pending);
      this.deps.onStep?.('intent', 'restore', id);
      try {
        await driver.restore(id, snapshotId, pending.scratch_id);
      } catch (err) {
        // One step: the item is whole (the swap happened or not), so it is not redone at start; refilled in place, it is.
        if (driver.capabilities.oneStepRestore) {
          await driver.delete(pending.scratch_id).catch(() => undefined);
          this.records.setStatus(id, 'ready');
        }
        throw err;
      }
      if (row.quota_bytes) await driver.setQuota(id, row.quota_bytes);
      this.deps.onStep?.('done', 'restore', id);
      this.records.setStatus(id, 'ready');
    });
  }

  /** Removes an item; unknown ids are not an error. Whether anything still needs it is its owner's rule. */
  delete(id: string): Promise<void> {
    return this.mutex.run(id, async () => {
      const row = this.records.getById(id);
      if (!row) return;
      const driver = await this.ready();
      this.records.setStatus(id, 'deleting');
      this.deps.onStep?.('intent', 'delete', id);
      try {
        await driver.delete(id);
      } catch (err) {
        // Still in use (a container names its volume): nothing was removed, the item stays.
        if (err instanceof StorageError && err.kind === 'busy') this.records.setStatus(id, 'ready');
        throw err;
      }
      this.deps.onStep?.('done', 'delete', id);
      this.records.delete(id);
    });
  }

  async usage(ids: string[]): Promise<Map<string, ItemUsage>> {
    for (const id of ids) this.readyItem(id);
    return (await this.ready()).usage(ids);
  }

  async setQuota(id: string, quotaBytes: number | null): Promise<void> {
    await this.mutex.run(id, async () => {
      if (this.readyItem(id).kind !== 'volume') throw new StorageError('invalid', 'a snapshot takes no quota');
      await (await this.ready()).setQuota(id, quotaBytes);
      this.records.setQuota(id, quotaBytes);
    });
  }

  /** The engine volume a container binds to see the item (read-only for a snapshot). */
  async mountFor(id: string): Promise<ItemMount> {
    const row = this.readyItem(id);
    return (await this.ready()).mountFor(id, row.kind === 'snapshot', labelsOf(row));
  }

  /** Moves an item to another owner (a fork's workspace handed to the new box once it is recorded). */
  setOwner(id: string, owner: string): void {
    this.readyItem(id);
    this.records.setOwner(id, owner);
  }

  private async reconcileWith(driver: StorageDriver): Promise<ReconcileReport> {
    const report = await reconcileItems(driver, this.records, this.deps);
    if (report.missing.length)
      this.deps.log.error({ missing: report.missing }, 'store items recorded as ready have no data in the store');
    return report;
  }

  /** A store failure as the API's problem. */
  static toApiError(err: unknown): unknown {
    if (err instanceof EngineError && err.kind === 'unavailable')
      return new ApiError('engine_unavailable', err.message);
    if (!(err instanceof StorageError)) return err;
    switch (err.kind) {
      case 'not_found':
        return new ApiError('not_found', err.message);
      case 'busy':
        return new ApiError('conflict', err.message);
      case 'invalid':
        return new ApiError('invalid_body', err.message);
      case 'no_space':
        return new ApiError('conflict', `the store is full: ${err.message}`);
      case 'unavailable':
        return new ApiError('engine_unavailable', `the copy-on-write store is not available: ${err.message}`);
      default:
        return err;
    }
  }
}
