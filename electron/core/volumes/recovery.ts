import fs from 'node:fs';
import { now } from '../ids';
import type { VolumeCopies } from './copies';
import { VOLUME_ROLES } from './helpers';
import { namesInIntent } from './restores';
import type { VolumeService } from './service';

/**
 * Whenever the engine comes up (first at start, before the box reconciler):
 * undoes or finishes what a crash cut short. Operations running in this
 * process (`inFlight`) are left alone.
 */
export async function recoverVolumes(volumes: VolumeService, copies: VolumeCopies): Promise<void> {
  const { store, inFlight } = volumes;
  const { engine, helpers, log, instanceId } = volumes.deps;
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
  for (const row of store.all()) {
    if (live(row.id)) continue;
    if (row.status === 'creating') {
      await engine.removeVolume(row.engine_name);
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
  // Engine volumes of this instance that no record names (a crash between the engine call and the record).
  const named = new Set([
    ...store.all().flatMap((v) => [v.engine_name, ...namesInIntent(v)]),
    ...store.snapshots.all().map((s) => s.engine_name),
  ]);
  for (const role of Object.values(VOLUME_ROLES)) {
    for (const v of await engine.listVolumes({ 'boxdesk.instance': instanceId, 'boxdesk.role': role })) {
      if (named.has(v.name) || live(v.labels['boxdesk.id'] ?? '') || live(v.labels['boxdesk.owner'] ?? '')) continue;
      log.warn({ volume: v.name }, 'removing an engine volume of this core that no record names');
      await engine
        .removeVolume(v.name)
        .catch((err: unknown) => log.warn({ err, volume: v.name }, 'could not remove an unnamed engine volume'));
    }
  }
}
