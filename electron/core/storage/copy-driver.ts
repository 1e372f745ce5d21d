import type { ContainerEngine, VolumeMount } from '../engine/container-engine';
import { helperLabels, helperSpec, runToEnd } from '../engine/helper-containers';
import { randomBase32 } from '../ids';
import {
  itemVolumeLabels,
  itemVolumeName,
  listItemVolumes,
  PROBE_VOLUME_LABELS,
  removeItemVolume,
} from './engine-volumes';
import { removeStoreHelpers, STORE_HELPER_ROLE } from './store-helper';
import type { ItemMount, ItemUsage, StorageCapabilities, StorageDriver, StoreSpace } from './storage-driver';
import { StorageError } from './storage-driver';

// Fixed scripts: item names reach a helper only as its volume mounts, never in a script.
const COPY = 'cp -a /src/. /dst/';
const REFLINK = 'cp -a --reflink=always /src/. /dst/';
const REFILL = 'find /dst -mindepth 1 -maxdepth 1 -exec rm -rf {} + && ';
const MEASURE = 'for d in /v/*; do [ -d "$d" ] && echo "${d#/v/} $(du -sb "$d" | cut -f1)"; done; true';
const SPACE = 'df -P -B1 /v | tail -n 1';
const PROBE =
  'echo probe > /dst/a && cp --reflink=always /dst/a /dst/b 2>&1 && echo reflink-ok || echo "reflink-failed"';

export interface CopyDriverDeps {
  engine: ContainerEngine;
  instanceId: string;
  /** The image helpers run from: the default base's (its `cp`, `du`, `df`). */
  image: () => Promise<string>;
}

/**
 * Items as plain engine volumes; snapshots and clones are copies made by a short-lived
 * helper container from the default base: `cp --reflink=always` (reflink: shared blocks on
 * xfs or btrfs, so no bytes copied) or `cp -a` (copy: today's full copies). Quotas are not
 * enforced (capabilities.quota false), so `storage_enforced` stays false.
 */
export class CopyDriver implements StorageDriver {
  readonly capabilities: StorageCapabilities;

  constructor(
    readonly name: 'reflink' | 'copy',
    private readonly deps: CopyDriverDeps,
  ) {
    this.capabilities = { copyOnWrite: name === 'reflink', quota: false, oneStepRestore: false };
  }

  private volume(id: string): string {
    return itemVolumeName(this.deps.instanceId, id);
  }

  /** Runs a fixed script in a helper with these mounts; answers its output, or throws with it. */
  private async run(mounts: VolumeMount[], script: string): Promise<string> {
    const { engine, instanceId } = this.deps;
    const id = await engine.createContainer(
      helperSpec({
        name: `boxdesk-store-copy-${instanceId}-${randomBase32(6)}`,
        image: await this.deps.image(),
        command: ['/bin/sh', '-c', script],
        hostname: 'boxdesk-store',
        labels: helperLabels(instanceId, STORE_HELPER_ROLE),
        mounts,
      }),
    );
    const { code, output } = await runToEnd(engine, id);
    if (code !== 0)
      throw new StorageError(
        /No space left/i.test(output) ? 'no_space' : 'failed',
        `a store helper failed (exit ${code}): ${output.trim().slice(-500)}`,
      );
    return output;
  }

  /** copy always works; reflink only where a probe clone in a scratch volume does (not on ext4, not with busybox's cp). */
  async start(): Promise<void> {
    // A helper a kill -9 cut short holds nothing: its copy's record is undone at reconcile.
    await removeStoreHelpers(this.deps.engine, this.deps.instanceId);
    if (this.name === 'copy') return;
    const scratch = this.volume(`probe-${randomBase32(8)}`);
    await this.deps.engine.createVolume(scratch, PROBE_VOLUME_LABELS(this.deps.instanceId));
    try {
      const out = await this.run([{ volume: scratch, path: '/dst', readOnly: false }], PROBE);
      if (!out.includes('reflink-ok'))
        throw new StorageError(
          'unavailable',
          /unrecognized option|invalid option|unknown option/i.test(out)
            ? "the default base's cp has no --reflink"
            : `the engine's volume filesystem cannot reflink (${out.replace('reflink-failed', '').trim() || 'cp --reflink=always failed'})`,
        );
    } finally {
      await this.deps.engine.removeVolume(scratch).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {}

  async create(id: string, _quotaBytes: number | null = null, labels: Record<string, string> = {}): Promise<void> {
    await this.deps.engine.createVolume(this.volume(id), itemVolumeLabels(this.deps.instanceId, id, labels));
  }

  private async copyInto(sourceId: string, id: string, refill: boolean): Promise<void> {
    const script = (refill ? REFILL : '') + (this.name === 'reflink' ? REFLINK : COPY);
    await this.run(
      [
        { volume: this.volume(sourceId), path: '/src', readOnly: true },
        { volume: this.volume(id), path: '/dst', readOnly: false },
      ],
      script,
    );
  }

  private async mustExist(id: string): Promise<void> {
    if (!(await this.deps.engine.inspectVolume(this.volume(id))))
      throw new StorageError('not_found', `no store item ${id}`);
  }

  async snapshot(sourceId: string, id: string, labels: Record<string, string> = {}): Promise<void> {
    await this.clone(sourceId, id, null, labels);
  }

  async clone(
    sourceId: string,
    id: string,
    _quotaBytes: number | null = null,
    labels: Record<string, string> = {},
  ): Promise<void> {
    await this.mustExist(sourceId);
    await this.create(id, null, labels);
    await this.copyInto(sourceId, id, false);
  }

  /** Emptied and filled again in place: not one step, so a crash midway is redone at start. */
  async restore(id: string, snapshotId: string): Promise<void> {
    await this.mustExist(snapshotId);
    await this.mustExist(id);
    await this.copyInto(snapshotId, id, true);
  }

  async delete(id: string): Promise<void> {
    await removeItemVolume(this.deps.engine, this.volume(id));
  }

  async usage(ids: string[]): Promise<Map<string, ItemUsage>> {
    const out = new Map<string, ItemUsage>();
    const existing = await listItemVolumes(this.deps.engine, this.deps.instanceId);
    const mounts = ids
      .filter((id) => existing.has(id))
      .map((id) => ({ volume: this.volume(id), path: `/v/${id}`, readOnly: true }));
    if (mounts.length === 0) return out;
    for (const line of (await this.run(mounts, MEASURE)).split('\n')) {
      const [id, bytes] = line.trim().split(' ');
      // Full copies share nothing; reflinked ones may share blocks, which du cannot see (an upper bound).
      if (id && bytes && /^\d+$/.test(bytes)) out.set(id, { sizeBytes: Number(bytes), exclusiveBytes: Number(bytes) });
    }
    return out;
  }

  async setQuota(): Promise<void> {}

  async mountFor(id: string, readOnly: boolean): Promise<ItemMount> {
    await this.mustExist(id);
    return { volume: this.volume(id), readOnly };
  }

  async list(): Promise<string[]> {
    return [...(await listItemVolumes(this.deps.engine, this.deps.instanceId)).keys()];
  }

  /** The filesystem the engine keeps its volumes on (measured through a scratch volume). */
  async space(): Promise<StoreSpace> {
    const { engine, instanceId } = this.deps;
    const scratch = this.volume(`probe-${randomBase32(8)}`);
    const info = await engine.createVolume(scratch, PROBE_VOLUME_LABELS(instanceId));
    try {
      const [, total, used] = (await this.run([{ volume: scratch, path: '/v', readOnly: true }], SPACE))
        .trim()
        .split(/\s+/);
      return {
        path: info.mountpoint ? info.mountpoint.replace(/\/[^/]+\/_data$/, '') : `the engine's volumes`,
        sizeBytes: total && /^\d+$/.test(total) ? Number(total) : null,
        usedBytes: used && /^\d+$/.test(used) ? Number(used) : null,
      };
    } finally {
      await engine.removeVolume(scratch).catch(() => undefined);
    }
  }
}
