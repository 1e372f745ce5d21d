import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_NETWORK } from '../../../../shared/schemas/network';
import type { PoolInfo } from '../../../../shared/schemas/system';
import type { BasesPort, WarmTarget } from '../../bases/port';
import type { ContainerEngine, ContainerSpec, ContainerState } from '../../engine/container-engine';
import type { EngineMonitor } from '../../engine/engine-monitor';
import { newId } from '../../ids';
import type { Disposable } from '../../lifetime';
import { BOX_ID_PREFIX, newBoxRow } from '../box-create';
import { limitsOf, type BoxRow } from '../box-row';
import { LABELS } from '../container-spec';
import type { BoxWorkspaces } from '../workspaces';
import { POOL_CONFIG, poolHostname, type PoolMember } from './pool-fit';

export interface WarmPoolDeps {
  engine: ContainerEngine;
  bases: Pick<BasesPort, 'warmTargets' | 'onChange'>;
  workspaces: BoxWorkspaces;
  monitor: EngineMonitor;
  instanceId: string;
  log: FastifyBaseLogger;
  /** The container a cold create makes for a row (box-create.ts), so a pool container is made the same. */
  containerSpec(row: BoxRow): ContainerSpec;
  /** Whether a box of that id exists (a claimed pool container is a box's now). */
  hasBox(id: string): boolean;
}

/** Longest wait before trying again after the engine failed to make a pool container. */
export const MAX_BACKOFF_MS = 60_000;

interface PoolState {
  hits: number;
  failures: number;
  retryAt: number;
}

/** Work in flight (a make or a removal), by base and image, so a drain can wait for what concerns it. */
interface Work {
  base: string;
  image: string;
  done: Promise<void>;
}

/**
 * The warm pools (SPEC: Speed): for each base with `warm: N`, N containers made as a cold create
 * makes them (its workspace on the store made for the box id each will become), started, then
 * paused. A create that fits takes one (`take`, box-create.ts); the pools refill in the background,
 * one container at a time, backing off while the engine fails. Pool containers have no box record:
 * only their labels (`boxdesk.pool`, its image and workspace) say what they are, and `reconcile`
 * sorts them at each engine-up, before the store's items and the boxes are.
 */
export class WarmPool implements Disposable {
  private ready: PoolMember[] = [];
  /** Ids being made, or taken by a create not yet recorded: recovery and the reconciler leave them alone. */
  private readonly busy = new Set<string>();
  private readonly state = new Map<string, PoolState>();
  private readonly work = new Set<Work>();
  private started = false;
  private disposed = false;
  private pumping = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: WarmPoolDeps) {
    // A base changed (or its image arrived): news worth trying again for at once.
    deps.bases.onChange(() => {
      for (const s of this.state.values()) s.retryAt = 0;
      this.sync();
    });
  }

  /** Whether the container of this box id is the pool's (ready, being made or being claimed). */
  holds(id: string): boolean {
    return this.busy.has(id) || this.ready.some((m) => m.id === id);
  }

  /** A ready container of the base, taken out of the pool for a create; undefined: none fits. */
  take(base: string, withWorkspace: boolean): PoolMember | undefined {
    const target = this.targets().get(base);
    if (!target || !this.started) return undefined;
    const member = this.ready.find(
      (m) => m.base === base && m.image === target.image && (m.workspace !== null) === withWorkspace,
    );
    if (!member) return undefined;
    this.ready = this.ready.filter((m) => m !== member);
    this.busy.add(member.id);
    return member;
  }

  /** The create recorded the box: it owns the container and workspace now. */
  claimed(member: PoolMember): void {
    this.busy.delete(member.id);
    this.deps.workspaces.inFlight.delete(member.id);
    this.stateOf(member.base).hits++;
    this.kick();
  }

  /** A taken container the create could not use goes (the create then makes its box the cold way). */
  async discard(member: PoolMember): Promise<void> {
    await this.track(member.base, member.image, this.remove(member));
    this.busy.delete(member.id);
    this.kick();
  }

  /** Starts refilling (after the first reconcile). */
  start(): void {
    this.started = true;
    this.kick();
  }

  /** Each pool against its base: GET /v1/system. */
  report(): PoolInfo[] {
    const out: PoolInfo[] = [];
    const targets = this.targets();
    const bases = new Set([...targets.keys(), ...this.ready.map((m) => m.base)]);
    for (const base of [...bases].sort()) {
      const size = targets.get(base)?.warm ?? 0;
      const ready = this.ready.filter((m) => m.base === base).length;
      if (size > 0 || ready > 0) out.push({ base, size, ready, hits: this.state.get(base)?.hits ?? 0 });
    }
    return out;
  }

  /**
   * Removes the base's containers that no longer match it (all of them once it is deleted, those
   * of its old image once it has another) and waits for makes and removals of them in flight: its
   * image can go once this answers.
   */
  async drain(base: string): Promise<void> {
    for (let round = 0; round < 10; round++) {
      this.sync();
      const current = this.targets().get(base)?.image;
      const pending = [...this.work].filter((w) => w.base === base && w.image !== current);
      if (pending.length === 0) return;
      await Promise.all(pending.map((w) => w.done));
    }
  }

  /** The pools against the bases: members of a deleted base, of an old image or beyond the warm count go. */
  sync(): void {
    const targets = this.targets();
    const kept = new Map<string, number>();
    for (const m of this.ready) {
      const target = targets.get(m.base);
      const count = kept.get(m.base) ?? 0;
      if (target && target.image === m.image && count < target.warm) {
        kept.set(m.base, count + 1);
        continue;
      }
      this.ready = this.ready.filter((r) => r !== m);
      void this.track(m.base, m.image, this.remove(m));
    }
    this.kick();
  }

  /**
   * At each engine-up, before the store's unnamed items go: pool containers of this core that are
   * paused, of their base's current image, within its warm count and with their workspace are kept;
   * every other one goes (one a crash cut short while it was made or claimed, one the engine stopped).
   */
  async reconcile(): Promise<void> {
    const storeUp = await this.deps.workspaces.available();
    const listed = (await this.deps.engine.listContainers({ [LABELS.instance]: this.deps.instanceId })).filter(
      (c) => c.labels[LABELS.pool] !== undefined && !this.deps.hasBox(c.labels[LABELS.id] ?? ''),
    );
    const byId = new Map(listed.map((c) => [c.labels[LABELS.id], c]));
    for (const m of this.ready) {
      if (byId.get(m.id)?.state === 'paused') continue;
      this.ready = this.ready.filter((r) => r !== m);
      await this.remove(m);
    }
    const targets = this.targets();
    for (const c of listed) {
      const id = c.labels[LABELS.id]!;
      if (this.holds(id)) continue;
      const member = await this.adoptable(c, targets, storeUp);
      if (member) {
        this.deps.workspaces.inFlight.add(id);
        this.ready.push(member);
        continue;
      }
      this.deps.log.warn({ container: c.id, boxId: id }, 'removing a warm-pool container that is no longer wanted');
      const item = c.labels[LABELS.poolWorkspace] || null;
      await this.deps.engine.removeContainer(c.id);
      if (item) await this.deps.workspaces.remove(item).catch(() => undefined);
    }
  }

  private async adoptable(
    c: ContainerState,
    targets: Map<string, WarmTarget>,
    storeUp: boolean,
  ): Promise<PoolMember | null> {
    const base = c.labels[LABELS.pool]!;
    const image = c.labels[LABELS.poolImage] ?? '';
    const item = c.labels[LABELS.poolWorkspace] || null;
    const target = targets.get(base);
    const wanted = target && target.image === image && this.ready.filter((m) => m.base === base).length < target.warm;
    if (c.state !== 'paused' || !wanted) return null;
    if (item ? !storeUp || !this.deps.workspaces.exists(item) : storeUp) return null;
    const workspace = item ? { item, volume: await this.deps.workspaces.mountName(item) } : null;
    const quota = item ? this.deps.workspaces.quotaFor(POOL_CONFIG.storage_gb) : null;
    return {
      id: c.labels[LABELS.id]!,
      base,
      image,
      containerId: c.id,
      workspace,
      quota,
      limits: limitsOf(POOL_CONFIG),
    };
  }

  private targets(): Map<string, WarmTarget> {
    return new Map(this.deps.bases.warmTargets().map((t) => [t.name, t]));
  }

  private stateOf(base: string): PoolState {
    let s = this.state.get(base);
    if (!s) this.state.set(base, (s = { hits: 0, failures: 0, retryAt: 0 }));
    return s;
  }

  private track(base: string, image: string, done: Promise<void>): Promise<void> {
    const entry: Work = { base, image, done: done.catch(() => undefined) };
    this.work.add(entry);
    return entry.done.finally(() => this.work.delete(entry));
  }

  /** Refills in the background: one container at a time, never while the engine is away. */
  private kick(): void {
    if (this.disposed || !this.started) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'the warm pool could not refill'))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async pump(): Promise<void> {
    while (!this.disposed && this.deps.monitor.current.up) {
      const target = this.nextShort();
      if (!target) return;
      await this.track(target.name, target.image, this.make(target));
    }
  }

  /** A base whose pool is short and not backing off; the earliest retry is scheduled otherwise. */
  private nextShort(): WarmTarget | undefined {
    let retry = Infinity;
    for (const target of this.targets().values()) {
      const have = this.ready.filter((m) => m.base === target.name && m.image === target.image).length;
      if (have >= target.warm) continue;
      const { retryAt } = this.stateOf(target.name);
      if (retryAt <= Date.now()) return target;
      retry = Math.min(retry, retryAt);
    }
    if (retry !== Infinity) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.kick(), retry - Date.now());
      this.timer.unref();
    }
    return undefined;
  }

  /** One pool container: its workspace, its container (as a cold create's), started, paused. */
  private async make(target: WarmTarget): Promise<void> {
    const { engine, workspaces } = this.deps;
    const id = newId(BOX_ID_PREFIX);
    this.busy.add(id);
    workspaces.inFlight.add(id);
    const quota = (await workspaces.available()) ? workspaces.quotaFor(POOL_CONFIG.storage_gb) : undefined;
    const member: PoolMember = {
      ...{ id, base: target.name, image: target.image, containerId: '', workspace: null },
      ...{ quota: quota ?? null, limits: limitsOf(POOL_CONFIG) },
    };
    try {
      if (quota !== undefined) member.workspace = await workspaces.make(id, quota);
      member.containerId = await engine.createContainer(this.spec(member));
      await engine.startContainer(member.containerId);
      await engine.pauseContainer(member.containerId);
    } catch (err) {
      await this.remove(member);
      this.busy.delete(id);
      const s = this.stateOf(target.name);
      s.failures++;
      s.retryAt = Date.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (s.failures - 1));
      this.deps.log.warn({ err, base: target.name, failures: s.failures }, 'could not make a warm-pool container');
      return;
    }
    this.stateOf(target.name).failures = 0;
    this.busy.delete(id);
    this.ready.push(member);
    // The base may have changed meanwhile: sync keeps it only if it still matches.
    this.sync();
  }

  private spec(member: PoolMember): ContainerSpec {
    const row = newBoxRow({
      ...{ id: member.id, project: '', input: { name: 'pool' }, baseName: member.base },
      ...{ root: { image: member.image, ownsImage: false, origin: null }, config: POOL_CONFIG, dataMounts: null },
      ...{ internal: {}, source: null, storageEnforced: Boolean(this.deps.monitor.current.info?.storageLimit) },
      ...{ workspace: member.workspace, workspaceQuota: member.quota, network: DEFAULT_NETWORK, secrets: [] },
    });
    const spec = this.deps.containerSpec(row);
    return {
      ...spec,
      // No network until a claim gives it the box's rules and its project's (pool-claim.ts):
      // `none` where the engine can move a container from it, which takes a claim about 45 ms less
      // than leaving the engine's default bridge; else that default network.
      network: this.deps.engine.movesFrozenContainers ? { name: 'none', aliases: [] } : undefined,
      name: `boxdesk-pool-${member.base}-${member.id.slice(4, 12)}`,
      hostname: poolHostname(member.id),
      labels: {
        [LABELS.id]: member.id,
        [LABELS.instance]: this.deps.instanceId,
        [LABELS.pool]: member.base,
        [LABELS.poolImage]: member.image,
        [LABELS.poolWorkspace]: member.workspace?.item ?? '',
      },
    };
  }

  /** The container, then its workspace; whatever fails here is left to the next engine-up's reconcile. */
  private async remove(member: PoolMember): Promise<void> {
    if (member.containerId)
      await this.deps.engine.removeContainer(member.containerId).catch((err: unknown) => {
        this.deps.log.warn({ err, container: member.containerId }, 'could not remove a warm-pool container');
      });
    await this.deps.workspaces.remove(member.workspace?.item ?? null).catch(() => undefined);
    this.deps.workspaces.inFlight.delete(member.id);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.all([...this.work].map((w) => w.done));
  }
}
