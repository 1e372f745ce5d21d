import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { BoxdeskEvent } from '../../../shared/events';
import { RESET_EVENT } from '../../../shared/events';
import { removeBoxes, upsertBoxes } from './box-cache';
import { useApi } from './client-context';
import { queryKeys } from './query-keys';
import { applyServiceEvents } from './services';
import { isUnauthorized } from './session';
import { snapshotKeys } from './snapshots';
import { SseParser } from './sse-parser';
import { patchBackup, patchVolume, volumeKeys } from './volumes';

/** Events are applied together, at most this long after the first of a batch arrived. */
const BATCH_MS = 30;
const RETRY_MS = [500, 1000, 2000, 5000];

export type EventStreamState = 'connecting' | 'live' | 'reconnecting';

type Listener = (events: BoxdeskEvent[]) => void;
const listeners = new Set<Listener>();

/** Lets a view react to events beyond the caches (e.g. a notification when a box it waits for changes). */
export function subscribeEvents(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function apply(qc: QueryClient, events: BoxdeskEvent[]): void {
  const upserts = new Map<string, Extract<BoxdeskEvent, { type: 'box.status' }>['data']['box']>();
  const removals: { project: string; name: string }[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'box.created':
      case 'box.updated':
      case 'box.status':
      case 'box.published':
      case 'box.unpublished':
        upserts.set(`${e.data.box.project}/${e.data.box.name}`, e.data.box);
        break;
      case 'box.deleted':
        upserts.delete(`${e.data.box.project}/${e.data.box.name}`);
        removals.push(e.data.box);
        break;
      case 'engine.status':
        void qc.invalidateQueries({ queryKey: queryKeys.health });
        void qc.invalidateQueries({ queryKey: queryKeys.version });
        void qc.invalidateQueries({ queryKey: queryKeys.system });
        break;
      case 'base.pull':
        if (e.data.done) void qc.invalidateQueries({ queryKey: queryKeys.bases });
        break;
      case 'snapshot.created':
      case 'snapshot.deleted':
        void qc.invalidateQueries({ queryKey: snapshotKeys.project(e.data.snapshot.project) });
        break;
      case 'base.created':
      case 'base.deleted':
        void qc.invalidateQueries({ queryKey: queryKeys.bases });
        break;
      case 'base.import':
        if (e.data.done) void qc.invalidateQueries({ queryKey: queryKeys.bases });
        break;
      case 'volume.created':
      case 'volume.updated':
        patchVolume(qc, e.data.volume);
        // A snapshot taken or a restore done is told as an update of its volume.
        if (e.type === 'volume.updated')
          void qc.invalidateQueries({ queryKey: volumeKeys.snapshots(e.data.volume.project, e.data.volume.name) });
        break;
      case 'volume.deleted':
        patchVolume(qc, e.data.volume, true);
        break;
      case 'volume.backup':
        if (e.project) {
          patchBackup(qc, e.project, e.data.backup);
          // A finished backup may have pushed the oldest past the retention.
          if (e.data.backup.status !== 'pending')
            void qc.invalidateQueries({ queryKey: volumeKeys.backups(e.project, e.data.volume) });
        }
        break;
      case 'volume.backup.deleted':
        if (e.project) patchBackup(qc, e.project, e.data.backup, true);
        break;
    }
  }
  if (upserts.size) upsertBoxes(qc, [...upserts.values()]);
  if (removals.length) removeBoxes(qc, removals);
  applyServiceEvents(qc, events);
  for (const l of listeners) l(events);
}

/**
 * Reads GET /v1/events with fetch (EventSource cannot send the token header),
 * resumes with Last-Event-ID after a drop, refetches everything on `reset`,
 * and patches the react-query caches in debounced batches.
 */
export function useEvents(): EventStreamState {
  const { client, signOut } = useApi();
  const qc = useQueryClient();
  const [state, setState] = useState<EventStreamState>('connecting');

  useEffect(() => {
    const abort = new AbortController();
    let lastId: string | undefined;
    let pending: BoxdeskEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const batch = pending;
      pending = [];
      apply(qc, batch);
    };

    const readOnce = async () => {
      const res = await client.events(lastId, abort.signal);
      const body = res.body as ReadableStream<Uint8Array> | null;
      if (!body) throw new Error('the event stream has no body');
      // What happened while we were away is replayed (or a reset says to refetch); a first
      // connection refetches the engine health that may have changed meanwhile.
      if (lastId === undefined) void qc.invalidateQueries({ queryKey: queryKeys.health });
      setState('live');
      const reader = body
        .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
        .getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        for (const m of parser.push(value)) {
          if (m.event === RESET_EVENT) {
            void qc.invalidateQueries();
            continue;
          }
          if (m.id) lastId = m.id;
          pending.push(JSON.parse(m.data) as BoxdeskEvent);
          timer ??= setTimeout(flush, BATCH_MS);
        }
      }
    };

    void (async () => {
      for (let attempt = 0; !abort.signal.aborted; attempt++) {
        try {
          await readOnce();
          attempt = 0;
        } catch (err) {
          if (abort.signal.aborted) return;
          if (isUnauthorized(err)) {
            signOut('The core no longer accepts this token (it was revoked or is wrong). Sign in again.');
            return;
          }
        }
        if (abort.signal.aborted) return;
        setState('reconnecting');
        void qc.invalidateQueries({ queryKey: queryKeys.health });
        await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
      }
    })();

    return () => {
      abort.abort();
      if (timer) clearTimeout(timer);
    };
  }, [client, qc, signOut]);

  return state;
}
