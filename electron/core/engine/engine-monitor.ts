import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { now } from '../ids';
import type { Disposable } from '../lifetime';
import type { ContainerEngine, EngineInfo } from './container-engine';

export interface EngineHealth {
  up: boolean;
  reason: string | null;
  checkedAt: string;
  info: EngineInfo | null;
}

/** How long a ping may take. */
const PING_MS = 1500;
/** How long the second ping may take, when the engine was up. */
const PATIENT_PING_MS = 10_000;

/**
 * Watches the engine: the core serves without one, reports degraded, and
 * when the engine comes back runs the recovery hooks (events, reconcile)
 * by itself.
 */
export class EngineMonitor implements Disposable {
  private health: EngineHealth = { up: false, reason: 'not checked yet', checkedAt: now(), info: null };
  private timer: NodeJS.Timeout | null = null;
  private readonly upListeners: (() => Promise<void> | void)[] = [];
  private readonly changeListeners: ((health: EngineHealth) => void)[] = [];
  private disposed = false;
  private checking: Promise<EngineHealth> | null = null;

  constructor(
    private readonly engine: ContainerEngine,
    private readonly log: FastifyBaseLogger,
    private readonly intervals = { up: 5000, down: 1000 },
  ) {}

  get current(): EngineHealth {
    return this.health;
  }

  /** 503 engine_unavailable unless the engine is up, for operations that cannot wait for it. */
  requireUp(): void {
    if (!this.health.up)
      throw new ApiError(
        'engine_unavailable',
        `the container engine is unreachable (${this.health.reason}); start it and try again`,
      );
  }

  onUp(listener: () => Promise<void> | void): void {
    this.upListeners.push(listener);
  }

  onChange(listener: (health: EngineHealth) => void): void {
    this.changeListeners.push(listener);
  }

  start(): Promise<EngineHealth> {
    return this.tick();
  }

  /** A live check, shared by concurrent callers. */
  check(): Promise<EngineHealth> {
    this.checking ??= this.probe().finally(() => (this.checking = null));
    return this.checking;
  }

  /** Called by anyone who saw the engine fail, so recovery starts without waiting for the next tick. */
  reportDown(reason: string): void {
    if (this.health.up) this.setHealth({ up: false, reason, checkedAt: now(), info: null });
  }

  private async tick(): Promise<EngineHealth> {
    const health = await this.check();
    if (!this.disposed) {
      this.timer = setTimeout(() => void this.tick(), health.up ? this.intervals.up : this.intervals.down);
      this.timer.unref();
    }
    return health;
  }

  private async probe(): Promise<EngineHealth> {
    try {
      await this.ping();
      const info = this.health.up && this.health.info ? this.health.info : await this.engine.info();
      await this.setHealth({ up: true, reason: null, checkedAt: now(), info });
    } catch (err) {
      await this.setHealth({ up: false, reason: (err as Error).message, checkedAt: now(), info: null });
    }
    return this.health;
  }

  /**
   * A ping; while the engine was up, one that fails is tried again with more time before the
   * engine counts as gone. A busy engine is slow, not gone: on a loaded machine a ping took more
   * than 1.5 s now and then, and every operation answered 503 until the next check. An engine
   * that is really gone refuses the second ping as fast as the first.
   */
  private async ping(): Promise<void> {
    try {
      await this.engine.ping(PING_MS);
    } catch (err) {
      if (!this.health.up) throw err;
      this.log.debug({ err }, 'the container engine did not answer a ping; trying once more with more time');
      await this.engine.ping(PATIENT_PING_MS);
    }
  }

  private async setHealth(next: EngineHealth): Promise<void> {
    const wasUp = this.health.up;
    this.health = next;
    if (wasUp !== next.up) for (const listener of this.changeListeners) listener(next);
    if (!wasUp && next.up) {
      this.log.info({ engine: this.engine.name, version: next.info?.version }, 'container engine is up');
      for (const listener of this.upListeners) {
        try {
          await listener();
        } catch (err) {
          this.log.error({ err }, 'engine recovery step failed');
        }
      }
    } else if (wasUp && !next.up) {
      this.log.warn({ reason: next.reason }, 'container engine is unreachable; serving degraded until it returns');
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
