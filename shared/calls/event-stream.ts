import { createParser } from 'eventsource-parser';
import type { BoxdeskEvent } from '../events';
import { RESET_EVENT } from '../reset-event';
import { chunksOf, TextDecoder, type ByteStream } from './byte-stream';

/** One message of a text/event-stream. */
export interface ServerSentEvent {
  id?: string;
  /** `message` when the stream named none. */
  event: string;
  data: string;
}

/** A Boxdesk event, or `reset`: the core cannot replay what was missed, so refetch everything. */
export type StreamedEvent = BoxdeskEvent | { type: typeof RESET_EVENT };

/**
 * The one reader of text/event-stream bodies (the SDK, the CLI, the window and the tests all read
 * GET /v1/events through it): eventsource-parser applies the WHATWG rules (CR/LF variants,
 * multi-line data, ids, comments as keep-alives), this hands its messages over as they arrive.
 */
export async function* readServerSentEvents(body: ByteStream): AsyncGenerator<ServerSentEvent> {
  const arrived: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent: (m) =>
      arrived.push({ ...(m.id !== undefined ? { id: m.id } : {}), event: m.event ?? 'message', data: m.data }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of chunksOf(body)) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* arrived.splice(0);
  }
}

/**
 * The events of a GET /v1/events body, parsed; `onId` sees each event's id, for a Last-Event-ID
 * after a drop. A message that is not a Boxdesk event (no `type`) is skipped.
 */
export async function* readEvents(body: ByteStream, onId?: (id: string) => void): AsyncGenerator<StreamedEvent> {
  for await (const m of readServerSentEvents(body)) {
    if (m.event === RESET_EVENT) {
      yield { type: RESET_EVENT };
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(m.data);
    } catch {
      continue;
    }
    if (m.id !== undefined) onId?.(m.id);
    if (typeof parsed === 'object' && parsed !== null && 'type' in parsed) yield parsed as BoxdeskEvent;
  }
}
