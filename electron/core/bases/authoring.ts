import { Transform, type Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import type { Base, BaseCreate } from '../../../shared/schemas/system';
import type { BoxesPort } from '../boxes/port';
import type { ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import { ARCHIVE_POLICIES } from '../archives/archive-policy';
import { checkedArchive } from '../archives/checked-tar';
import { now } from '../ids';
import { nameList } from '../name-list';
import type { SnapshotsPort } from '../snapshots/port';
import { DEFAULT_BASE, type BaseCatalogWrites, type BaseRow } from './port';

export interface BaseAuthoringDeps {
  bases: BaseCatalogWrites;
  boxes: Pick<BoxesPort, 'find' | 'withLock' | 'roots' | 'usersOfBase' | 'drainPool'>;
  snapshots: Pick<SnapshotsPort, 'ready' | 'childrenOf'>;
  engine: ContainerEngine;
  bus: EventBus;
  /** --upload-limit: bounds the bytes an import unpacks to, not only the bytes sent. */
  uploadLimit: number;
}

/**
 * Making and removing bases: from an image the engine has, from a snapshot,
 * from a box's root, or from an uploaded rootfs tar. Images the core makes
 * carry its instance label and go with the base; a crash before the base's
 * row is written leaves an image no row names, removed at the next start.
 */
export class BaseAuthoring {
  constructor(private readonly deps: BaseAuthoringDeps) {}

  async create(input: BaseCreate): Promise<Base> {
    const given = (['image', 'from_snapshot', 'from_box'] as const).filter((k) => input[k] !== undefined);
    if (given.length !== 1) {
      throw new ApiError(
        'invalid_body',
        `give exactly one of image, from_snapshot or from_box (got ${given.length ? given.join(', ') : 'none'})`,
        {
          errors: [
            {
              path: given.length ? `body.${given[1]}` : 'body.image',
              message: 'exactly one of image, from_snapshot, from_box',
            },
          ],
        },
      );
    }
    if (input.project !== undefined && input.from_box === undefined) {
      throw new ApiError('invalid_body', 'project only goes with from_box', {
        errors: [{ path: 'body.project', message: 'only with from_box' }],
      });
    }
    this.assertFree(input.name);
    let base: Base;
    if (input.image !== undefined) base = await this.deps.bases.register({ name: input.name, image: input.image });
    else if (input.from_snapshot !== undefined) base = await this.fromSnapshot(input.name, input.from_snapshot);
    else base = await this.fromBox(input.name, input.project ?? 'default', input.from_box!);
    this.deps.bus.emit('base.created', { base }, null);
    return base;
  }

  private assertFree(name: string): void {
    if (this.deps.bases.get(name)) throw new ApiError('already_exists', `base "${name}" already exists`);
  }

  private async insert(row: BaseRow): Promise<Base> {
    if (!this.deps.bases.insert(row)) {
      if (row.owns_image) await this.deps.engine.removeImage(row.image).catch(() => undefined);
      throw new ApiError('already_exists', `base "${row.name}" already exists`);
    }
    return this.deps.bases.describe(row);
  }

  /** The snapshot's image, shared: the snapshot cannot be deleted while the base exists. */
  private async fromSnapshot(name: string, snapshotId: string): Promise<Base> {
    const snapshot = this.deps.snapshots.ready(snapshotId);
    if (!snapshot) throw new ApiError('not_found', `snapshot "${snapshotId}" not found`);
    return this.insert({ name, image: snapshot.image!, created_at: now(), owns_image: 0, from_snapshot: snapshot.id });
  }

  /** A commit of the box's root at this instant (paused only for the commit), owned by the base. */
  private async fromBox(name: string, project: string, boxName: string): Promise<Base> {
    const box = this.deps.boxes.find(project, boxName);
    const row = await this.deps.boxes.withLock(box.id, async () => {
      const current = this.deps.boxes.find(project, boxName);
      if (!current.container_id || !['running', 'stopped'].includes(current.status))
        throw new ApiError('conflict', `cannot make a base of box "${boxName}" while it is ${current.status}`);
      const image = await this.deps.boxes.roots.commit(current.container_id, current.image, 'base', name);
      return { name, image: image.id, created_at: now(), owns_image: 1, from_snapshot: current.origin };
    });
    return this.insert(row);
  }

  /**
   * A single-layer base from a rootfs tar (plain or gzip). The tar is read here under the rootfs
   * policy, bounded by the bytes it unpacks to, and the engine gets a tar the core writes from the
   * checked entries as they arrive. A refusal fails the engine's import, so no image is left.
   */
  async importTar(name: string, body: Readable, total: number | null): Promise<Base> {
    this.assertFree(name);
    let bytes = 0;
    let lastEmit = 0;
    const progress = (done: boolean, error?: string) =>
      this.deps.bus.emit('base.import', { name, bytes, total, done, ...(error ? { error } : {}) }, null);
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        bytes += chunk.length;
        if (Date.now() - lastEmit >= 250) {
          lastEmit = Date.now();
          progress(false);
        }
        cb(null, chunk);
      },
    });
    body.on('error', (err) => counter.destroy(err));
    body.pipe(counter);
    const { tar, done } = checkedArchive(counter, {
      policy: ARCHIVE_POLICIES.rootfs,
      limit: this.deps.uploadLimit,
      limitName: '--upload-limit',
    });
    const [imported, checked] = await Promise.allSettled([
      this.deps.engine.importImage(tar, { labels: this.deps.boxes.roots.labels('base', name) }),
      done,
    ]);
    const image = imported.status === 'fulfilled' ? imported.value : null;
    let error: unknown = checked.status === 'rejected' ? checked.reason : null;
    error ??= imported.status === 'rejected' ? imported.reason : null;
    if (!error && checked.status === 'fulfilled' && checked.value.entries === 0)
      error = new ApiError(
        'invalid_body',
        'the body is an empty archive: send a tar (or gzip tar) of a root filesystem (application/octet-stream)',
      );
    if (error) {
      if (image) await this.deps.engine.removeImage(image).catch(() => undefined);
      progress(true, (error as Error).message);
      throw error;
    }
    progress(true);
    const base = await this.insert({ name, image: image!, created_at: now(), owns_image: 1, from_snapshot: null });
    this.deps.bus.emit('base.created', { base }, null);
    return base;
  }

  /**
   * Bases whose image is built on this base's own (one made from a box of it). The engine keeps an
   * image while another builds on it (as `docker rmi` refuses one with dependent child images), so a
   * delete then would drop the base and leave its image behind, untagged and owned by nobody.
   */
  private async basesBuiltOn(row: BaseRow): Promise<string[]> {
    if (!row.owns_image) return [];
    const { engine } = this.deps;
    const own = (await engine.inspectImage(row.image))?.id;
    if (!own) return [];
    const names: string[] = [];
    for (const other of this.deps.bases.all()) {
      if (other.name === row.name || !other.owns_image) continue;
      // Up the other image's parents (a chain is flattened past 100 layers, so this ends soon).
      let parent = (await engine.inspectImage(other.image))?.parentId;
      for (let depth = 0; parent && depth < 200; depth++) {
        if (parent === own) {
          names.push(other.name);
          break;
        }
        parent = (await engine.inspectImage(parent))?.parentId;
      }
    }
    return names;
  }

  /** 409 while a box was made from it, or a snapshot or another base descends from it; `default` stays. */
  async delete(name: string): Promise<void> {
    if (name === DEFAULT_BASE)
      throw new ApiError(
        'conflict',
        'the base "default" cannot be deleted: new boxes start from it (start the core with --default-base to change its image)',
      );
    const row = this.deps.bases.get(name);
    if (!row) throw new ApiError('not_found', `base "${name}" not found; GET /v1/bases lists them`);
    const boxes = this.deps.boxes.usersOfBase(name).map((b) => `box "${b.name}" (project ${b.project})`);
    const snapshots = this.deps.snapshots.childrenOf(name).map((s) => `snapshot "${s.name}" (${s.id})`);
    const bases = (await this.basesBuiltOn(row)).map((b) => `base "${b}" (made from a box of it)`);
    const users = [...boxes, ...snapshots, ...bases];
    if (users.length)
      throw new ApiError('conflict', `base "${name}" is still used by ${nameList(users)}; delete those first`);
    const base = await this.deps.bases.describe(row);
    this.deps.bases.delete(name);
    // Its warm pool goes first: the engine keeps an image a container is made from.
    await this.deps.boxes.drainPool(name);
    if (row.owns_image) await this.deps.engine.removeImage(row.image);
    this.deps.bus.emit('base.deleted', { base }, null);
  }
}
