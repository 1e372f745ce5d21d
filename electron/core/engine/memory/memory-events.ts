import { PassThrough, type Readable } from 'node:stream';
import type { Disposable } from '../../lifetime';
import type { ContainerEvent, ContainerEventKind } from '../container-engine';

export function labelsMatch(have: Record<string, string>, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => have[k] === v);
}

interface Subscription {
  labels: Record<string, string>;
  onEvent: (event: ContainerEvent) => void;
  onEnd: (err?: Error) => void;
  active: boolean;
}

/**
 * Container events as the real engine sends them: later, in order, only to
 * watchers whose labels the container carries, and never after a watcher is
 * disposed. The stream ends (with an error) when the engine goes away.
 */
export class EventHub {
  private readonly subscriptions = new Set<Subscription>();

  watch(
    labels: Record<string, string>,
    onEvent: (event: ContainerEvent) => void,
    onEnd: (err?: Error) => void,
  ): Disposable {
    const sub: Subscription = { labels, onEvent, onEnd, active: true };
    this.subscriptions.add(sub);
    return {
      dispose: () => {
        sub.active = false;
        this.subscriptions.delete(sub);
      },
    };
  }

  emit(
    container: { id: string; labels: Record<string, string> },
    kind: ContainerEventKind,
    extra: { exitCode?: number; oom?: boolean } = {},
  ): void {
    const event: ContainerEvent = { containerId: container.id, labels: { ...container.labels }, kind, ...extra };
    for (const sub of this.subscriptions) {
      if (!labelsMatch(container.labels, sub.labels)) continue;
      setImmediate(() => {
        if (sub.active) sub.onEvent({ ...event });
      });
    }
  }

  /** The engine went away: every stream ends with an error, as a dropped connection does. */
  endAll(err: Error): void {
    for (const sub of [...this.subscriptions]) {
      this.subscriptions.delete(sub);
      setImmediate(() => {
        if (!sub.active) return;
        sub.active = false;
        sub.onEnd(err);
      });
    }
  }
}

/** The most a container's log keeps; older output goes (the real engine rotates its log files). */
const LOG_MAX_BYTES = 4 * 1024 * 1024;

/** A container's log: the main process's stdout and stderr, interleaved, kept across restarts. */
export class LogBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private readonly followers = new Set<PassThrough>();

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > LOG_MAX_BYTES && this.chunks.length > 1) this.bytes -= this.chunks.shift()!.length;
    for (const f of this.followers) f.write(chunk);
  }

  /** The last `tail` lines (all without it); a line is what ends with a newline. */
  text(tail?: number): Buffer {
    const all = Buffer.concat(this.chunks);
    if (tail === undefined) return all;
    if (tail <= 0) return Buffer.alloc(0);
    let end = all.length;
    if (all[end - 1] === 0x0a) end--;
    let start = end;
    for (let lines = 0; start > 0; start--) {
      if (all[start - 1] === 0x0a && ++lines === tail) break;
    }
    return all.subarray(start);
  }

  /** The log so far, then (when `follow` and the container runs) what comes, until it stops. */
  stream(options: { tail?: number; follow: boolean }, running: boolean): Readable {
    const out = new PassThrough();
    out.write(this.text(options.tail));
    if (!options.follow || !running) {
      out.end();
      return out;
    }
    this.followers.add(out);
    out.on('close', () => this.followers.delete(out));
    return out;
  }

  /** The container stopped: followers end. */
  endFollowers(): void {
    for (const f of this.followers) f.end();
    this.followers.clear();
  }
}
