import fs from 'node:fs';
import { now } from '../ids';
import type { VolumeCopies } from './copies';
import { VOLUME_ROLES } from './helpers';
import { STORE_ID_LABEL } from '../storage/port';
import { itemsInIntent, namesInIntent } from './restores';
import type { VolumeService } from './service';

/**
 * Whenever the engine comes up (first at start, before the box reconciler):
 * undoes or finishes what a crash cut short. Operations running in this
 * process (`inFlight`) are left alone.
 */
export async function recoverVolumes(volumes: VolumeService, copies: VolumeCopies): Promise<void> {
  const { store, inFlight } = volumes;
  const { engine, helpers, items, log, instanceId } = volumes.deps;
  const live = (id: string) => inFlight.has(id);
  if (inFlight.size === 0) {
    const n = await helpers.removeLeftovers();
    if (n) log.warn({ count: n }, 'removed volume helper containers left by a crash');
  }
  for (const row of store.all()) {
    if (row.paused && !live(row.id)) {
      for (const c of JSON.parse(row.paused) as string[]) await engine.unpauseContainer(c).catch(() => undefined);
      store.update(row.id, { paused: null });
      log.warn({ volume: row.name }, 'thawed boxes paused for a volume copy cut short by a crash');
    }
  }
  for (const snap of store.snapshots.all()) {
    if (live(snap.id) || (snap.status === 'ready' && !snap.internal)) continue;
    await copies.dropSnapshot(snap);
    log.warn({ snapshot: snap.id }, 'dropped a volume snapshot cut short by a crash');
  }
  // Store items are looked at once the store has reconciled its own (its start is then done).
  const withStore = await items.available();
  for (const row of store.all()) {
    if (live(row.id)) continue;
    if (row.item_id && !withStore) {
      if (row.status !== 'ready' || row.pending_restore)
        log.error({ volume: row.name }, 'interrupted work on a store volume waits for the store to work again');
      continue;
    }
    if (row.status === 'creating') {
      await items.remove(row);
      store.delete(row.id);
      log.warn({ volume: row.name }, 'dropped a volume clone cut short by a crash');
    } else if (row.status === 'deleting') {
      await volumes.finishDelete(row);
    } else if (row.pending_restore) {
      // Rolled back before its swap, finished after it; never redone. One volume's trouble does not stop the rest.
      await copies.restores
        .recover(row)
        .catch((err: unknown) =>
          log.error({ err, volume: row.name }, 'could not settle an interrupted volume restore'),
        );
    }
  }
  for (const backup of store.backups.all()) {
    if (backup.status !== 'pending' || live(backup.id)) continue;
    fs.rmSync(`${volumes.backupFile(backup.volume_id, backup.id)}.partial`, { force: true });
    store.finishBackup(backup.id, {
      status: 'failed',
      reason: 'the core stopped while the backup was being written; take another',
      size_bytes: null,
      sha256: null,
      finished_at: now(),
    });
    log.warn({ backup: backup.id }, 'marked a backup cut short by a crash as failed');
  }
  if (withStore) await settleItems(volumes);
  // Engine volumes of this instance that no record names (a crash between the engine call and the record).
  // The store's own (an item's, labelled as the volume's) are the store's to reconcile: settleItems names them.
  const named = new Set([
    ...store.all().flatMap((v) => [v.engine_name, ...namesInIntent(v)]),
    ...store.snapshots.all().map((s) => s.engine_name),
  ]);
  for (const role of Object.values(VOLUME_ROLES)) {
    for (const v of await engine.listVolumes({ 'boxdesk.instance': instanceId, 'boxdesk.role': role })) {
      if (named.has(v.name) || v.labels[STORE_ID_LABEL]) continue;
      if (live(v.labels['boxdesk.id'] ?? '') || live(v.labels['boxdesk.owner'] ?? '')) continue;
      log.warn({ volume: v.name }, 'removing an engine volume of this core that no record names');
      await engine
        .removeVolume(v.name)
        .catch((err: unknown) => log.warn({ err, volume: v.name }, 'could not remove an unnamed engine volume'));
    }
  }
}

/**
 * The volumes' records against the store's items: an item of this module that no record (nor a
 * restore's intent) names goes (a crash after the store made it, before the record said so), and
 * every ready volume's and snapshot's engine volume is made again where its view changed (the
 * loop device after a reboot), before the reconciler makes the boxes' containers.
 */
async function settleItems(volumes: VolumeService): Promise<void> {
  const { store, inFlight } = volumes;
  const { items, log } = volumes.deps;
  const named = new Set(
    [
      ...store.all().flatMap((v) => [v.item_id, ...itemsInIntent(v)]),
      ...store.snapshots.all().map((s) => s.item_id),
    ].filter((id): id is string => id !== null),
  );
  for (const item of items.owned()) {
    if (named.has(item.id) || inFlight.has(item.record)) continue;
    log.warn({ item: item.id, owner: item.record }, 'removing a store item of a volume that no record names');
    await items.remove({ item_id: item.id, engine_name: '' }).catch((err: unknown) => {
      log.warn({ err, item: item.id }, 'could not remove a store item no volume record names');
    });
  }
  const ready = [...store.all(), ...store.snapshots.all()].filter((r) => r.item_id && r.status === 'ready');
  for (const row of ready)
    // The engine volume's name stays (the item's); only its view is made again where it changed.
    await items.mountName(row).catch((err: unknown) => {
      log.error({ err, item: row.item_id, record: row.id }, 'the store item of a volume record is not usable');
    });
}
