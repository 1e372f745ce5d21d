import { type ClientConstructor, type FetchResponse } from './client-core';

/** The server-sent event stream. */
export function withEvents<B extends ClientConstructor>(Base: B) {
  return class EventCalls extends Base {
    /** The server-sent event stream (text/event-stream); pass Last-Event-ID to resume. */
    events(lastEventId?: string, signal?: unknown): Promise<FetchResponse> {
      return this.raw(
        'GET',
        '/v1/events',
        undefined,
        { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal,
      );
    }
  };
}
