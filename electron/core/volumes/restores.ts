import { ApiError } from '../../../shared/errors';
import type { Volume, VolumeRestore } from '../../../shared/schemas/volumes';
import { now, randomBase32 } from '../ids';
import { nameList } from '../name-list';
import { VOLUME_ROLES } from './helpers';
import type { VolumeService } from './service';
import type { Source, VolumeSources } from './sources';
import type { VolumeRow } from './store';
import { volumeOwner, type Measured } from './volume-items';

/** What a restore filled beside the volume's own data. */
type Filled = Measured & { engine_name: string; item_id: string | null };

/**
 * `volumes.pending_restore`. `filling`: a new engine volume (`target`), or for a store volume a new
 * item (`target_item`), is being filled beside the volume's own; a crash rolls it back (the target
 * goes, the volume is as it was). `swapped`: the record names the new one; a crash is finished
 * (the boxes' containers are made to mount it, then the `old` one goes). A restore is never redone.
 * (A one-step store restore has no intent here: the store records and finishes its own.)
 */
export type RestoreIntent =
  | { phase: 'filling'; source: Source; target: string; target_item?: string | null }
  | { phase: 'swapped'; source: Source; old: string; old_item?: string | null };

function intentOf(row: VolumeRow): RestoreIntent | null {
  if (!row.pending_restore) return null;
  const parsed = JSON.parse(row.pending_restore) as Partial<RestoreIntent>;
  return parsed.phase === 'filling' || parsed.phase === 'swapped' ? (parsed as RestoreIntent) : null;
}

/** Engine volume names a restore intent still needs (the sweep of unnamed volumes keeps them). */
export function namesInIntent(row: VolumeRow): string[] {
  const intent = intentOf(row);
  if (!intent) return [];
  return [intent.phase === 'filling' ? intent.target : intent.old];
}

/** Store items a restore intent still needs (the volumes' recovery keeps them until it settles the intent). */
export function itemsInIntent(row: VolumeRow): string[] {
  const intent = intentOf(row);
  const item = intent?.phase === 'filling' ? intent.target_item : intent?.old_item;
  return item ? [item] : [];
}

/** How a restore finds the volume snapshot it names (VolumeCopies). */
export interface SnapshotFinder {
  findSnapshot(project: string, id: string, volume?: VolumeRow): { id: string; item_id: string | null };
}

/**
 * Restores of a volume from one of its snapshots or done backups: check everything first, fill a
 * new engine volume beside the old one, swap the record to it in one step, then let the old one go.
 * A refused or failed restore leaves the volume's data exactly as it was.
 */
export class VolumeRestores {
  constructor(
    private readonly volumes: VolumeService,
    private readonly copies: SnapshotFinder,
    private readonly sources: VolumeSources,
  ) {}

  private get store() {
    return this.volumes.store;
  }

  private get deps() {
    return this.volumes.deps;
  }

  /** 409 while a box that mounts it is not stopped; the boxes that mount it are held until it ends. */
  async restore(project: string, name: string, input: VolumeRestore): Promise<Volume> {
    if ((input.snapshot_id === undefined) === (input.backup_id === undefined)) {
      throw new ApiError('invalid_body', 'give exactly one of snapshot_id, backup_id', {
        errors: [{ path: 'body', message: 'exactly one of snapshot_id, backup_id' }],
      });
    }
    const first = this.volumes.find(project, name);
    const boxIds = this.volumes.mountsOf(project, name).map((m) => m.box_id);
    await this.volumes.withLocks(first.id, boxIds, async () => {
      const volume = this.volumes.find(project, name);
      const snapshot = input.snapshot_id ? this.copies.findSnapshot(project, input.snapshot_id, volume) : null;
      const source: Source = snapshot
        ? { snapshot_id: snapshot.id }
        : { backup_id: this.volumes.findDoneBackup(project, input.backup_id!, volume).id };
      const busy = this.volumes.mountsOf(project, name).filter((m) => m.status !== 'stopped');
      if (busy.length) {
        const boxes = nameList(busy.map((m) => `"${m.box} (${m.status})"`));
        throw new ApiError(
          'conflict',
          `volume "${name}" is mounted by ${boxes}; stop those boxes (or detach it) and restore again`,
        );
      }
      this.volumes.requireEngine();
      await this.sources.verify(source);
      this.volumes.inFlight.add(volume.id);
      try {
        if (volume.item_id && snapshot?.item_id && this.deps.items.oneStepRestore) {
          // One step on btrfs (the item swapped with a writable snapshot); the store finishes it after a crash.
          await this.deps.items.restore(volume.item_id, snapshot.item_id);
          await this.volumes.measure(volume);
          return;
        }
        const target = await this.fillBeside(volume, source);
        this.swapIn(volume, source, target);
        // The data is restored; what is left is finished at the next start if it fails now.
        await this.finishSwap(volume.id).catch((err: unknown) =>
          this.deps.log.warn({ err, volume: name }, 'restored; the old engine volume goes at the next start'),
        );
      } finally {
        this.volumes.inFlight.delete(volume.id);
      }
    });
    const out = this.volumes.represent(this.volumes.find(project, name));
    this.deps.bus.emit('volume.updated', { volume: out }, project);
    return out;
  }

  /**
   * A new engine volume (for a store volume, a new item: a clone of the snapshot's item, or an
   * empty one) filled from the verified source, the intent recorded first; on failure it goes again.
   */
  private async fillBeside(volume: VolumeRow, source: Source): Promise<Filled> {
    const targetItem = volume.item_id ? this.deps.items.newItemId() : null;
    const intent: RestoreIntent = {
      phase: 'filling',
      source,
      target: targetItem ? '' : this.volumes.engineName(volume, randomBase32(6)),
      target_item: targetItem,
    };
    this.store.update(volume.id, { pending_restore: JSON.stringify(intent) });
    try {
      if (!targetItem) {
        await this.deps.engine.createVolume(intent.target, this.volumes.labels(volume, VOLUME_ROLES.volume));
        const bytes = await this.sources.fill(source, intent.target, volume.id);
        return { engine_name: intent.target, item_id: null, size_bytes: bytes, exclusive_bytes: null };
      }
      const { items } = this.deps;
      const labels = this.volumes.labels(volume, VOLUME_ROLES.volume);
      const from = await this.sources.itemOf(source);
      const owner = volumeOwner(volume.id);
      // The new item takes the volume's place: it carries the same cap as the one it replaces.
      const target = from
        ? await items.clone(from, targetItem, owner, labels, volume.size_gb)
        : await items.create(targetItem, owner, labels, volume.size_gb);
      if (!from) await this.sources.fill(source, target, volume.id);
      const filled = { id: volume.id, engine_name: target, item_id: targetItem };
      return { ...filled, ...(await this.volumes.sizeOf(filled)) };
    } catch (err) {
      await this.rollBack(volume.id, intent).catch((cleanup: unknown) =>
        this.deps.log.warn({ err: cleanup, volume: volume.name }, 'a failed restore is rolled back at the next start'),
      );
      throw err;
    }
  }

  /**
   * The swap: the record names the new engine volume (and item), in one statement. From here on
   * the restore has happened; what follows (the boxes' containers, the old engine volume or item)
   * is finished at start if a crash cuts it short.
   */
  private swapIn(volume: VolumeRow, source: Source, target: Filled): void {
    const intent: RestoreIntent = { phase: 'swapped', source, old: volume.engine_name, old_item: volume.item_id };
    this.store.swapEngineVolume(volume.id, target, now(), JSON.stringify(intent));
  }

  /**
   * After the swap: each box that mounts the volume gets a container mounting the new engine
   * volume (recreated with its root kept; they are all stopped), then the old engine volume goes
   * and the intent is cleared. The caller holds the volume's and those boxes' locks.
   */
  private async finishSwap(volumeId: string): Promise<void> {
    const row = this.store.getById(volumeId);
    const intent = row && intentOf(row);
    if (!row || intent?.phase !== 'swapped') return;
    for (const mount of this.volumes.mountsOf(row.project, row.name)) {
      const box = this.deps.boxes.byId(mount.box_id);
      if (box?.container_id && ['running', 'stopped'].includes(box.status))
        await this.deps.boxes.replaceRoot(box, 'current');
    }
    await this.deps.items.remove({ item_id: intent.old_item ?? null, engine_name: intent.old });
    this.store.update(volumeId, { pending_restore: null });
  }

  private async rollBack(volumeId: string, intent: Extract<RestoreIntent, { phase: 'filling' }>): Promise<void> {
    await this.deps.items.remove({ item_id: intent.target_item ?? null, engine_name: intent.target });
    this.store.update(volumeId, { pending_restore: null });
  }

  /**
   * At start, for a restore a crash cut short: before the swap, rolled back; after it, finished.
   * An intent from before fill-beside-and-swap (the volume was emptied in place) is dropped and
   * reported: replaying it could wipe data written since.
   */
  async recover(row: VolumeRow): Promise<void> {
    const intent = intentOf(row);
    const log = this.deps.log;
    if (!intent) {
      this.store.update(row.id, { pending_restore: null });
      log.error(
        { volume: row.name, project: row.project, intent: row.pending_restore },
        'a volume restore begun by an earlier version was cut short; it is not redone (the volume holds what it was left with): restore it again',
      );
    } else if (intent.phase === 'filling') {
      await this.rollBack(row.id, intent);
      log.warn(
        { volume: row.name, project: row.project },
        'rolled back a volume restore cut short by a crash before its swap: the volume is as it was',
      );
    } else {
      const boxIds = this.volumes.mountsOf(row.project, row.name).map((m) => m.box_id);
      await this.volumes.withLocks(row.id, boxIds, () => this.finishSwap(row.id));
      log.warn(
        { volume: row.name, project: row.project },
        'finished a volume restore cut short by a crash after its swap: the volume holds the restored data',
      );
    }
  }
}
