import type { Context } from './context';
import { openEventStream, type EventStream } from './event-stream';

/** A time budget for following something (`--wait`, `--timeout S`): what is left, and waits that keep to it. */
export class Deadline {
  private readonly at: number;

  constructor(readonly seconds: number) {
    this.at = Date.now() + seconds * 1000;
  }

  /** Milliseconds left (negative once passed). */
  left(): number {
    return this.at - Date.now();
  }

  /** Sleeps `ms`, or what is left if less. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, this.left()))));
  }

  /** The promise's value, or `undefined` once the budget is spent. */
  within<T>(promise: Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>(
      (resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, this.left()))),
    );
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  /** The core's event stream, or `undefined` where it is not available (the caller polls instead). */
  openEvents(ctx: Context): Promise<EventStream | undefined> {
    return this.within(openEventStream(ctx.fetch, ctx.connection.url, ctx.connection.token).catch(() => undefined));
  }
}
