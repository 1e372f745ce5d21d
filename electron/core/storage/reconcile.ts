import type { FastifyBaseLogger } from 'fastify';
import type { ContainerEngine } from '../engine/container-engine';
import { listItemVolumes, PROBE_VOLUME_LABELS, removeItemVolume } from './engine-volumes';
import type { ItemRecords, PendingRestore } from './records';
import type { StorageDriver } from './storage-driver';

export interface ReconcileReport {
  /** Creates, snapshots and clones cut short: their items removed, their records dropped. */
  undone: string[];
  /** Deletes cut short, finished. */
  deleted: string[];
  /** Restores cut short, redone. */
  restored: string[];
  /** Items in the store that no record names (a crash between the driver and the record), removed. */
  orphans: string[];
  /** Records whose item is not in the store: data lost outside Boxdesk (reported, kept). */
  missing: string[];
}

/**
 * Makes the store agree with its records, at start before anything uses it. An
 * unconfirmed create/snapshot/clone is undone (its caller never got an answer, so its
 * owner's own records cannot name it as done); an unconfirmed delete or restore is
 * finished (both are safe to redo); anything the records do not name goes.
 */
export async function reconcileItems(
  driver: StorageDriver,
  records: ItemRecords,
  deps: { engine: ContainerEngine; instanceId: string; log: FastifyBaseLogger },
): Promise<ReconcileReport> {
  const { log } = deps;
  const report: ReconcileReport = { undone: [], deleted: [], restored: [], orphans: [], missing: [] };
  const present = new Set(await driver.list());
  const scratch = new Set<string>();
  for (const row of records.all()) {
    if (row.status === 'creating') {
      await driver.delete(row.id);
      records.delete(row.id);
      report.undone.push(row.id);
      log.warn({ item: row.id }, 'undid a store item whose creation a crash cut short');
    } else if (row.status === 'deleting') {
      await driver.delete(row.id);
      records.delete(row.id);
      report.deleted.push(row.id);
      log.warn({ item: row.id }, 'finished deleting a store item');
    } else if (row.status === 'restoring') {
      const pending = JSON.parse(row.pending ?? '{}') as PendingRestore;
      scratch.add(pending.scratch_id);
      if (pending.snapshot_id && present.has(pending.snapshot_id) && present.has(row.id)) {
        await driver.restore(row.id, pending.snapshot_id, pending.scratch_id);
        if (row.quota_bytes) await driver.setQuota(row.id, row.quota_bytes);
        report.restored.push(row.id);
        log.warn({ item: row.id }, 'redid a store restore a crash cut short');
      } else if (pending.scratch_id) await driver.delete(pending.scratch_id);
      records.setStatus(row.id, 'ready');
    } else if (!present.has(row.id)) report.missing.push(row.id);
  }
  const named = new Set(records.all().map((r) => r.id));
  for (const id of present) {
    if (named.has(id)) continue;
    if (!scratch.has(id)) log.warn({ item: id }, 'removing a store item that no record names');
    await driver.delete(id);
    report.orphans.push(id);
  }
  await removeStrayVolumes(deps, named);
  return report;
}

/** Engine volumes of items no record names (btrfs views), and probe volumes a crash left. */
async function removeStrayVolumes(
  deps: { engine: ContainerEngine; instanceId: string; log: FastifyBaseLogger },
  named: ReadonlySet<string>,
): Promise<void> {
  const { engine, instanceId, log } = deps;
  for (const [id, volume] of await listItemVolumes(engine, instanceId)) {
    if (named.has(id)) continue;
    await removeItemVolume(engine, volume.name).catch((err) =>
      log.warn({ err, volume: volume.name }, 'could not remove an engine volume of a store item that is gone'),
    );
  }
  for (const v of await engine.listVolumes(PROBE_VOLUME_LABELS(instanceId)))
    await engine.removeVolume(v.name).catch(() => undefined);
}
