import type { FetchLike } from '../shared/client';
import { RESET_EVENT, type BoxdeskEvent } from '../shared/events';

/** One server-sent event: its type and its data parsed as JSON. */
export interface StreamEvent {
  type: string;
  data: unknown;
}

/** Splits a text/event-stream body into events (comments and keep-alives skipped). */
export async function* parseEventStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let sep: number;
    while ((sep = buffered.indexOf('\n\n')) !== -1) {
      const block = buffered.slice(0, sep);
      buffered = buffered.slice(sep + 2);
      let type = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') type = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0) continue;
      const text = data.join('\n');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: hand over the text
      }
      yield { type, data: parsed };
    }
  }
}

export interface EventStream {
  events: AsyncGenerator<BoxdeskEvent | { type: typeof RESET_EVENT }>;
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
  async function* events(): AsyncGenerator<BoxdeskEvent | { type: typeof RESET_EVENT }> {
    try {
      for await (const e of parseEventStream(res.body as AsyncIterable<Uint8Array>)) {
        if (e.type === RESET_EVENT) yield { type: RESET_EVENT };
        else if (typeof e.data === 'object' && e.data !== null && 'type' in e.data) yield e.data as BoxdeskEvent;
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  }
  return { events: events(), close: () => controller.abort() };
}
