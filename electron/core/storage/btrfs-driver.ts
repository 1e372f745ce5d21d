import path from 'node:path';
import type { ContainerEngine, HelperPrivileges } from '../engine/container-engine';
import { ensureViewVolume, itemVolumeName, removeItemVolume } from './engine-volumes';
import { IN_HELPER } from './helper-commands';
import type { StoreHelper } from './store-helper';
import type { ItemMount, ItemUsage, StorageCapabilities, StorageDriver, StoreSpace } from './storage-driver';
import { StorageError } from './storage-driver';

/** Where the store's btrfs lives. */
export type BtrfsBacking =
  /** The host's own btrfs: subvolumes in the store folder itself. */
  | { kind: 'host' }
  /** A loop-backed image file in the store folder, `sizeBytes` long (sparse), on a stable loop number. */
  | {
      kind: 'loop';
      imageName: string;
      sizeBytes: number;
      /** The loop number to take when it is free: the one recorded at an earlier start, else one of this store's own. */
      preferLoop: number;
      /** Records the number taken, so the engine volumes that name it stay right across restarts. */
      rememberLoop(n: number): void;
    };

export interface BtrfsDriverDeps {
  engine: ContainerEngine;
  instanceId: string;
  helper: StoreHelper;
  /** The store folder on the engine's host (the data dir's `storage/`), bind-mounted into the helper. */
  hostDir: string;
  backing: BtrfsBacking;
}

const SUBVOLS = 'subvols';

/**
 * btrfs subvolumes: create, read-only and writable snapshots (no bytes copied), qgroup
 * quotas and usage, each a typed command run by the store's helper container (the core runs
 * as a user; subvolume deletion and quotas need CAP_SYS_ADMIN). Containers see an item as an
 * engine volume the engine mounts itself: `type=btrfs,device=/dev/loopN,o=subvol=…` for the
 * loop image, a bind of the subvolume's directory for the host's own btrfs.
 */
export class BtrfsDriver implements StorageDriver {
  readonly name;
  readonly capabilities: StorageCapabilities = { copyOnWrite: true, quota: true, oneStepRestore: true };
  private loop: number | null = null;

  constructor(private readonly deps: BtrfsDriverDeps) {
    this.name = deps.backing.kind === 'loop' ? ('loop-btrfs' as const) : ('btrfs' as const);
  }

  private get top(): string {
    return this.deps.backing.kind === 'loop' ? IN_HELPER.loopTop : IN_HELPER.storeDir;
  }

  private privileges(devices: string[]): HelperPrivileges {
    return {
      capAdd: ['SYS_ADMIN'],
      devices,
      binds: [{ hostPath: this.deps.hostDir, path: IN_HELPER.storeDir, readOnly: false }],
      noAppArmor: true,
    };
  }

  private imageInHelper(imageName: string): string {
    return path.posix.join(IN_HELPER.storeDir, imageName);
  }

  async start(): Promise<void> {
    const { backing, helper } = this.deps;
    if (backing.kind === 'host') {
      await helper.hold({ op: 'hold', image: null, loop: null }, this.top, this.privileges([]));
      return;
    }
    const image = this.imageInHelper(backing.imageName);
    // The loop number can be taken by someone else between finding it and attaching: once more then.
    for (let attempt = 1; ; attempt++) {
      const prepared = await helper.runOnce(
        {
          op: 'prepare',
          image,
          template: IN_HELPER.emptyFilesystem,
          sizeBytes: backing.sizeBytes,
          prefer: this.loop ?? backing.preferLoop,
        },
        this.privileges(['/dev/loop-control']),
      );
      const loop = prepared.loop as number;
      try {
        await helper.hold({ op: 'hold', image, loop }, this.top, this.privileges([`/dev/loop${loop}`]));
        this.loop = loop;
        backing.rememberLoop(loop);
        return;
      } catch (err) {
        if (!(err instanceof StorageError) || err.kind !== 'busy' || attempt >= 3) throw err;
      }
    }
  }

  /**
   * Stops the helper (its mount goes) and lets go of the loop device: detached once no box's
   * volume holds the filesystem either (autoclear), and its node removed when it is free. The
   * next start attaches the image again, to the same number when it is still free.
   */
  async stop(): Promise<void> {
    await this.deps.helper.stop();
    const { backing } = this.deps;
    if (backing.kind !== 'loop' || this.loop === null) return;
    const loop = this.loop;
    this.loop = null;
    await this.deps.helper.runOnce(
      { op: 'release', image: this.imageInHelper(backing.imageName), loop },
      this.privileges(['/dev/loop-control', `/dev/loop${loop}`]),
    );
  }

  private run(cmd: Parameters<StoreHelper['exec']>[0]): Promise<Record<string, unknown>> {
    return this.deps.helper.exec(cmd, this.top);
  }

  async create(id: string, quotaBytes: number | null): Promise<void> {
    await this.run({ op: 'create', id, quotaBytes });
  }

  async snapshot(sourceId: string, id: string): Promise<void> {
    await this.run({ op: 'snapshot', source: sourceId, id, readOnly: true, quotaBytes: null });
  }

  async clone(sourceId: string, id: string, quotaBytes: number | null): Promise<void> {
    await this.run({ op: 'snapshot', source: sourceId, id, readOnly: false, quotaBytes });
  }

  /** A writable snapshot beside, swapped in by one rename (RENAME_EXCHANGE), the old content then deleted. */
  async restore(id: string, snapshotId: string, scratchId: string): Promise<void> {
    await this.run({ op: 'delete', id: scratchId });
    await this.run({ op: 'snapshot', source: snapshotId, id: scratchId, readOnly: false, quotaBytes: null });
    await this.run({ op: 'exchange', id, with: scratchId });
    await this.run({ op: 'delete', id: scratchId });
  }

  async delete(id: string): Promise<void> {
    await removeItemVolume(this.deps.engine, itemVolumeName(this.deps.instanceId, id));
    await this.run({ op: 'delete', id });
  }

  async usage(ids: string[]): Promise<Map<string, ItemUsage>> {
    const out = new Map<string, ItemUsage>();
    if (ids.length === 0) return out;
    const answer = await this.run({ op: 'usage', ids });
    const items = answer.items as Record<string, { referenced_bytes: number; exclusive_bytes: number }>;
    for (const [id, u] of Object.entries(items))
      out.set(id, { sizeBytes: u.referenced_bytes, exclusiveBytes: u.exclusive_bytes });
    return out;
  }

  async setQuota(id: string, quotaBytes: number | null): Promise<void> {
    await this.run({ op: 'quota', id, bytes: quotaBytes ?? 0 });
  }

  async mountFor(id: string, readOnly: boolean, labels: Record<string, string> = {}): Promise<ItemMount> {
    const { engine, instanceId, backing, hostDir } = this.deps;
    const subvol = `${SUBVOLS}/${id}`;
    let options: Record<string, string>;
    if (backing.kind === 'loop') {
      if (this.loop === null) throw new StorageError('unavailable', 'the store is not attached');
      options = { type: 'btrfs', device: `/dev/loop${this.loop}`, o: `subvol=${subvol}` };
    } else {
      options = { type: 'none', device: path.join(hostDir, subvol), o: 'bind' };
    }
    return { volume: await ensureViewVolume(engine, instanceId, id, options, labels), readOnly };
  }

  async list(): Promise<string[]> {
    const answer = await this.run({ op: 'list' });
    return (answer.items as { id: string; subvolume: boolean }[]).filter((i) => i.subvolume).map((i) => i.id);
  }

  /** Settles the filesystem: commits, and waits until deleted subvolumes' space is free. */
  async settle(): Promise<void> {
    await this.run({ op: 'sync' });
  }

  async space(): Promise<StoreSpace> {
    const { backing, hostDir } = this.deps;
    const info = await this.run({ op: 'info' });
    return {
      path: backing.kind === 'loop' ? path.join(hostDir, backing.imageName) : hostDir,
      sizeBytes: info.size_bytes as number,
      usedBytes: info.used_bytes as number,
    };
  }

  /** Grows the loop image (and its filesystem) to `sizeBytes`; a host btrfs has nothing to grow. */
  async grow(sizeBytes: number): Promise<void> {
    const { backing } = this.deps;
    if (backing.kind !== 'loop' || this.loop === null) return;
    await this.run({ op: 'grow', image: this.imageInHelper(backing.imageName), loop: this.loop, sizeBytes });
  }
}
