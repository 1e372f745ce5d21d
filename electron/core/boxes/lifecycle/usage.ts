import type { BoxStore } from '../store';

/** A use is written to the store at most this often per box: a proxied request costs no write. */
export const USAGE_WRITE_MS = 1000;

/**
 * When each box was last used (an API call on it, a request through the proxy), for the idle
 * clocks. Kept in memory and written to the box's `last_used_at` at most once a second, so a
 * restart of the core neither resets the clocks nor fires them early (by more than that second).
 * Open sockets (console, exec, proxied WebSockets) hold the box in use while they are open.
 */
export class BoxUsage {
  private readonly last = new Map<string, number>();
  private readonly written = new Map<string, number>();
  private readonly holds = new Map<string, number>();
  /** Told when a hold ends: the box's idle clocks start from then (lifecycle/clocks.ts). */
  onRelease: () => void = () => undefined;

  constructor(
    private readonly store: Pick<BoxStore, 'update' | 'getById'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The box was used now. */
  touch(boxId: string): void {
    const t = this.clock();
    this.last.set(boxId, t);
    if (t - (this.written.get(boxId) ?? 0) < USAGE_WRITE_MS) return;
    this.written.set(boxId, t);
    if (this.store.getById(boxId)) this.store.update(boxId, { last_used_at: new Date(t).toISOString() });
  }

  /** The box is in use until the returned release is called (once). */
  hold(boxId: string): () => void {
    this.touch(boxId);
    this.holds.set(boxId, (this.holds.get(boxId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.holds.get(boxId) ?? 1) - 1;
      if (n > 0) this.holds.set(boxId, n);
      else this.holds.delete(boxId);
      this.touch(boxId);
      this.onRelease();
    };
  }

  inUse(boxId: string): boolean {
    return this.holds.has(boxId);
  }

  /** The last use in ms: this run's, else the stored one, else `fallback` (the box's creation). */
  lastUsedMs(boxId: string, stored: string | null, fallback: string): number {
    return this.last.get(boxId) ?? Date.parse(stored ?? fallback);
  }

  /** The last use as written to the store (a use within the last second may be newer). */
  flush(boxId: string): void {
    const t = this.last.get(boxId);
    if (t !== undefined && t !== this.written.get(boxId) && this.store.getById(boxId)) {
      this.written.set(boxId, t);
      this.store.update(boxId, { last_used_at: new Date(t).toISOString() });
    }
  }

  forget(boxId: string): void {
    this.last.delete(boxId);
    this.written.delete(boxId);
    this.holds.delete(boxId);
  }
}
