/**
 * Requests the proxy has in flight, per target container: what a deployment
 * waits on before it stops the color it replaced (services/deployer.ts).
 */
export class ProxyTraffic {
  private readonly inFlight = new Map<string, number>();
  private readonly waiters = new Set<() => void>();

  /** Counts a request to the container until `done` is called (once). */
  begin(containerId: string): () => void {
    this.inFlight.set(containerId, this.count(containerId) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = this.count(containerId) - 1;
      if (left > 0) this.inFlight.set(containerId, left);
      else this.inFlight.delete(containerId);
      for (const wake of [...this.waiters]) wake();
    };
  }

  count(containerId: string): number {
    return this.inFlight.get(containerId) ?? 0;
  }

  /**
   * Resolves once nothing is in flight to the container, or after `maxMs`;
   * `onCount` hears each new count meanwhile. Answers what was left (0: drained).
   */
  drain(containerId: string, maxMs: number, onCount: (n: number) => void, signal?: AbortSignal): Promise<number> {
    return new Promise((resolve) => {
      let last = -1;
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal?.removeEventListener('abort', finish);
        resolve(this.count(containerId));
      };
      const check = () => {
        const n = this.count(containerId);
        if (n === 0) return finish();
        if (n !== last) onCount((last = n));
      };
      const timer = setTimeout(finish, maxMs);
      signal?.addEventListener('abort', finish, { once: true });
      this.waiters.add(check);
      check();
    });
  }
}
