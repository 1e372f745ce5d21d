import { readEvents, type StreamedEvent } from '../shared/calls/event-stream';
import type { FetchLike } from '../shared/client';

export interface EventStream {
  events: AsyncGenerator<StreamedEvent>;
  close(): void;
}

/**
 * Opens GET /v1/events. Resolves once the server has accepted the stream, so
 * a caller can subscribe first and then read the current state without a gap.
 */
export async function openEventStream(
  fetch: FetchLike,
  baseUrl: string,
  token: string | undefined,
): Promise<EventStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${baseUrl}/v1/events`, { method: 'GET', headers, signal: controller.signal });
  if (!res.ok || !res.body) {
    controller.abort();
    throw new Error(`the event stream answered HTTP ${res.status}`);
  }
  async function* events(): AsyncGenerator<StreamedEvent> {
    try {
      yield* readEvents(res.body as AsyncIterable<Uint8Array>);
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  }
  return { events: events(), close: () => controller.abort() };
}
