import type { FetchLike, FetchResponse } from '../../shared/client';

export interface RetryPolicy {
  /** Retries after the first try (0: none). */
  retries: number;
  /** The wait before the first retry when the answer gives no Retry-After; doubled each time. */
  backoffMs: number;
  /** A Retry-After longer than this is not waited for: the answer is handed back as it is. */
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, backoffMs: 250, maxWaitMs: 30_000 };

type Init = Parameters<FetchLike>[1];

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Retry-After as milliseconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function headerOf(init: Init, name: string): string | undefined {
  const found = Object.keys(init.headers).find((k) => k.toLowerCase() === name);
  return found === undefined ? undefined : init.headers[found];
}

/** What a request allows: a stream body cannot be sent twice; a POST only with an Idempotency-Key. */
function retriable(init: Init): { refused: boolean; failed: boolean; keyed: boolean } {
  const replayable = init.body === undefined || typeof init.body === 'string' || init.body instanceof Uint8Array;
  const keyed = headerOf(init, 'idempotency-key') !== undefined;
  const safe = SAFE_METHODS.has(init.method.toUpperCase()) || keyed;
  // A 429 comes from the rate limit, before any route ran: any replayable request may go again.
  // A lost connection or a 503 may come after the work began: only what is safe to repeat goes.
  return { refused: replayable, failed: replayable && safe, keyed };
}

function aborted(init: Init): boolean {
  return (init.signal as { aborted?: boolean } | undefined)?.aborted === true;
}

/** The same answer, its body already read (so the retry logic could look at it). */
function answered(res: FetchResponse, text: string): FetchResponse {
  return {
    ok: res.ok,
    status: res.status,
    headers: res.headers,
    text: () => Promise.resolve(text),
    json: () => Promise.resolve(JSON.parse(text) as unknown),
    body: null,
  };
}

async function drain(res: FetchResponse): Promise<void> {
  await res.text().catch(() => undefined);
}

/**
 * A fetch that retries what is safe to retry: a 429 (any replayable request), and a lost
 * connection or a 503 (GET, PUT, DELETE, and a POST carrying an Idempotency-Key). It waits what
 * Retry-After says (else backs off), at most `maxWaitMs`. A keyed create retried after a lost
 * answer may meet its first try still running (409 `conflict`, "still running"): it waits and asks
 * again, and the core then answers the first try's result.
 */
export function retryingFetch(
  fetch: FetchLike,
  policy: RetryPolicy = DEFAULT_RETRY,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): FetchLike {
  return async (url, init) => {
    const may = retriable(init);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.retries || aborted(init);
      const backoff = policy.backoffMs * 2 ** attempt;
      let res: FetchResponse;
      try {
        res = await fetch(url, init);
      } catch (err) {
        if (last || !may.failed) throw err;
        await sleep(backoff);
        continue;
      }
      const again = res.status === 429 ? may.refused : res.status === 503 ? may.failed : false;
      if (again && !last) {
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff;
        if (wait <= policy.maxWaitMs) {
          await drain(res);
          await sleep(wait);
          continue;
        }
      }
      if (res.status === 409 && may.keyed && attempt > 0 && !last) {
        const text = await res.text();
        if (!/"code"\s*:\s*"conflict"/.test(text)) return answered(res, text);
        await sleep(backoff);
        continue;
      }
      return res;
    }
  };
}
