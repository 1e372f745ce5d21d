/** Why a queued task never ran. */
export class QueueWaitError extends Error {
  constructor(
    readonly reason: 'timeout' | 'aborted',
    readonly waitedMs: number,
  ) {
    super(
      reason === 'timeout' ? `waited ${waitedMs} ms in the queue` : 'the caller went away while waiting in the queue',
    );
    this.name = 'QueueWaitError';
  }
}

export interface QueueOptions {
  /** Drop the task (QueueWaitError 'aborted') when this aborts before its turn. */
  signal?: AbortSignal;
  /** Drop the task (QueueWaitError 'timeout') when its turn has not come within this many ms. */
  maxWaitMs?: number;
}

/**
 * Runs tasks for the same key one after another, in arrival order. A task
 * that would wait too long, or whose caller has gone, is dropped before it
 * runs; the tasks queued behind it keep their order.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(private readonly defaultMaxWaitMs = Infinity) {}

  run<T>(key: string, task: () => Promise<T>, options: QueueOptions = {}): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const maxWaitMs = options.maxWaitMs ?? this.defaultMaxWaitMs;
    let dropped: QueueWaitError | null = null;
    let settle: ((err: QueueWaitError) => void) | null = null;
    let timer: NodeJS.Timeout | null = null;
    const gaveUp = new Promise<never>((_, reject) => {
      settle = (err) => {
        dropped ??= err;
        if (timer) clearTimeout(timer);
        reject(err);
      };
    });
    gaveUp.catch(() => undefined);
    const started = Date.now();
    if (Number.isFinite(maxWaitMs))
      timer = setTimeout(() => settle!(new QueueWaitError('timeout', Date.now() - started)), maxWaitMs);
    const onAbort = () => settle!(new QueueWaitError('aborted', Date.now() - started));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const turn = previous.then(
      () => undefined,
      () => undefined,
    );
    const ran = turn.then(() => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (dropped) return undefined as T; // its caller has its answer already
      return task();
    });
    const result = Promise.race([ran, gaveUp]);
    const tail = ran.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  isBusy(key: string): boolean {
    return this.tails.has(key);
  }
}
