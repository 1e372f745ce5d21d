import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { BoxdeskClient } from '../../../shared/client';
import { readEvents } from '../../../shared/calls/event-stream';
import type { BoxdeskEvent } from '../../../shared/events';
import { RESET_EVENT } from '../../../shared/reset-event';
import { useApi } from './client-context';
import { applyEvents, type EventRules } from './event-rules';
import { queryKeys } from './query-keys';
import { isUnauthorized } from './session';

/** Events are applied together, at most this long after the first of a batch arrived. */
const BATCH_MS = 30;
const RETRY_MS = [500, 1000, 2000, 5000];
const REVOKED = 'The core no longer accepts this token (it was revoked or is wrong). Sign in again.';

export type EventStreamState = 'connecting' | 'live' | 'reconnecting';

type Listener = (events: BoxdeskEvent[]) => void;
const listeners = new Set<Listener>();

/** Lets a view react to events beyond the caches (e.g. a notification when a box it waits for changes). */
export function subscribeEvents(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

interface StreamOptions {
  client: BoxdeskClient;
  qc: QueryClient;
  signal: AbortSignal;
  onBatch(events: BoxdeskEvent[]): void;
  onState(state: EventStreamState): void;
  onUnauthorized(): void;
}

/** One connection: read until the stream ends or fails; events are handed over in debounced batches. */
async function readStream(o: StreamOptions, lastId: { value?: string }): Promise<void> {
  const res = await o.client.events(lastId.value, o.signal);
  const body = res.body as ReadableStream<Uint8Array> | null;
  if (!body) throw new Error('the event stream has no body');
  // What happened while we were away is replayed (or a reset says to refetch); a first
  // connection refetches the engine health that may have changed meanwhile.
  if (lastId.value === undefined) void o.qc.invalidateQueries({ queryKey: queryKeys.health });
  o.onState('live');
  let pending: BoxdeskEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    const batch = pending;
    pending = [];
    o.onBatch(batch);
  };
  o.signal.addEventListener('abort', () => clearTimeout(timer));
  for await (const event of readEvents(body, (id) => (lastId.value = id))) {
    if (event.type === RESET_EVENT) {
      void o.qc.invalidateQueries();
      continue;
    }
    pending.push(event);
    timer ??= setTimeout(flush, BATCH_MS);
  }
}

/** Reads again after every drop (backing off), until aborted or the token is refused. */
async function followStream(o: StreamOptions): Promise<void> {
  const lastId: { value?: string } = {};
  for (let attempt = 0; !o.signal.aborted; attempt++) {
    try {
      await readStream(o, lastId);
      attempt = 0;
    } catch (err) {
      if (o.signal.aborted) return;
      if (isUnauthorized(err)) return o.onUnauthorized();
    }
    if (o.signal.aborted) return;
    o.onState('reconnecting');
    void o.qc.invalidateQueries({ queryKey: queryKeys.health });
    await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
  }
}

/**
 * Reads GET /v1/events with fetch (EventSource cannot send the token header),
 * resumes with Last-Event-ID after a drop, refetches everything on `reset`,
 * and applies events in debounced batches through the features' rules.
 */
export function useEvents(rules: readonly EventRules[]): EventStreamState {
  const { client, signOut } = useApi();
  const qc = useQueryClient();
  const [state, setState] = useState<EventStreamState>('connecting');

  useEffect(() => {
    const abort = new AbortController();
    void followStream({
      client,
      qc,
      signal: abort.signal,
      onState: setState,
      onUnauthorized: () => signOut(REVOKED),
      onBatch: (events) => {
        applyEvents(qc, rules, events);
        for (const l of listeners) l(events);
      },
    });
    return () => abort.abort();
  }, [client, qc, signOut, rules]);

  return state;
}
