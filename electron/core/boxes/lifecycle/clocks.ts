import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../../shared/errors';
import type { Box } from '../../../../shared/schemas/box';
import type { EngineMonitor } from '../../engine/engine-monitor';
import type { EventBus } from '../../events/event-bus';
import { now } from '../../ids';
import type { Disposable } from '../../lifetime';
import { clockFacts, type BoxRow } from '../box-row';
import type { BoxStore } from '../store';
import { changeReason, nextChange, parseLifecycle, type Change } from './clock-rules';
import type { BoxSleep } from './sleep';
import type { BoxUsage } from './usage';

/** The longest the loop sleeps when nothing is due sooner (a clock's time moving under it is re-read then). */
const MAX_SLEEP_MS = 60_000;
/** A burst of box events re-reads the clocks once. */
const POKE_MS = 50;

export interface ClockDeps {
  store: Pick<BoxStore, 'withLifecycle' | 'getById'>;
  usage: BoxUsage;
  sleep: Pick<BoxSleep, 'pause'>;
  boxes: {
    stop(project: string, name: string, options: { reason?: string; onlyIf?: () => boolean }): Promise<Box>;
    deleteForClient(project: string, name: string): Promise<void>;
  };
  bus: EventBus;
  monitor: Pick<EngineMonitor, 'current'>;
  log: FastifyBaseLogger;
}

/**
 * The lifecycle clocks: one timer for every box. Each turn reads the boxes that have clocks (one
 * query; the engine is never polled), applies the changes that are due, and sleeps until the next
 * one. A box event (created, updated, a status) wakes it early: a clock may have been set or started.
 */
export class LifecycleClocks implements Disposable {
  private timer: NodeJS.Timeout | null = null;
  private dueAt = Infinity;
  private turning: Promise<void> | null = null;
  private disposed = false;
  /** Boxes whose delete a guard refused (a service's box): not tried again on every turn. */
  private readonly refused = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: ClockDeps) {
    this.unsubscribe = deps.bus.subscribe((event) => {
      if (event.type.startsWith('box.')) this.arm(POKE_MS);
    });
    deps.usage.onRelease = () => this.arm(POKE_MS);
  }

  start(): void {
    this.arm(0);
  }

  private arm(ms: number): void {
    if (this.disposed) return;
    const at = Date.now() + Math.max(0, ms);
    if (this.timer && at >= this.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dueAt = Infinity;
      void this.turn();
    }, at - Date.now());
    this.timer.unref();
  }

  /** One turn of the loop (a test may await it). */
  async turn(): Promise<void> {
    if (this.turning) return this.turning;
    this.turning = this.check().finally(() => (this.turning = null));
    return this.turning;
  }

  private async check(): Promise<void> {
    let next = MAX_SLEEP_MS;
    try {
      // The engine away: nothing can change now; its return reconciles and pokes (box events).
      if (!this.deps.monitor.current.up) return;
      for (const row of this.deps.store.withLifecycle()) {
        const change = this.changeOf(row);
        if (!change) continue;
        const wait = Date.parse(change.at) - Date.now();
        if (wait > 0) next = Math.min(next, wait);
        else await this.apply(row, change);
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'the lifecycle clocks could not run; trying again shortly');
      next = 1000;
    } finally {
      this.arm(next);
    }
  }

  private changeOf(row: BoxRow): Change | null {
    const { usage } = this.deps;
    const live = { lastUsedMs: usage.lastUsedMs(row.id, row.last_used_at, row.created_at), inUse: usage.inUse(row.id) };
    const change = nextChange(clockFacts(row, live));
    if (change?.action === 'delete' && this.refused.has(row.id)) return null;
    return change;
  }

  private async apply(row: BoxRow, change: Change): Promise<void> {
    const { project, name } = row;
    const at = now();
    const reason = changeReason(change, parseLifecycle(row.lifecycle), at);
    // Still due under the box's queue? A use since this turn began has moved it.
    const stillDue = () => {
      const current = this.deps.store.getById(row.id);
      const again = current && this.changeOf(current);
      return Boolean(again && again.action === change.action && Date.parse(again.at) <= Date.now());
    };
    try {
      if (change.action === 'pause') await this.deps.sleep.pause(project, name, { reason, onlyIf: stillDue });
      else if (change.action === 'stop') await this.deps.boxes.stop(project, name, { reason, onlyIf: stillDue });
      else await this.deps.boxes.deleteForClient(project, name);
    } catch (err) {
      // A guard's refusal (a service's box) stands; anything else (the engine away) is tried again.
      if (change.action === 'delete' && err instanceof ApiError && err.status === 409) this.refused.add(row.id);
      this.deps.log.warn({ err, box: name, project, change }, 'a lifecycle change of a box failed');
      return;
    }
    if (this.deps.store.getById(row.id)?.status_reason === reason || change.action === 'delete')
      this.deps.bus.emit(
        'box.lifecycle',
        { box: name, id: row.id, action: change.action, reason: change.reason, at },
        project,
      );
    if (change.action === 'delete') this.deps.usage.forget(row.id);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    await this.turning;
  }
}
