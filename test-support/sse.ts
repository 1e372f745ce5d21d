import { readServerSentEvents, type ServerSentEvent } from '../shared/calls/event-stream';

export type SseEvent = ServerSentEvent;

/** A real server-sent-events client over fetch (the one reader, shared/calls/event-stream.ts), collecting events as they arrive. */
export class SseClient {
  readonly events: SseEvent[] = [];
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];
  readonly done: Promise<void>;

  constructor(url: string, token: string, lastEventId?: string) {
    this.done = this.run(url, token, lastEventId).catch(() => undefined);
  }

  private async run(url: string, token: string, lastEventId?: string): Promise<void> {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal: this.controller.signal,
    });
    if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
    for await (const e of readServerSentEvents(res.body)) {
      this.events.push(e);
      for (const w of this.waiters.splice(0)) w();
    }
  }

  /** Waits until an event matches, or fails after `ms`. */
  async waitFor(match: (e: SseEvent) => boolean, ms = 15_000): Promise<SseEvent> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no matching event within ${ms} ms; got: ${this.events.map((e) => e.event).join(', ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.controller.abort();
  }
}

export function boxOf(e: SseEvent): { name: string; status: string } {
  return (JSON.parse(e.data) as { data: { box: { name: string; status: string } } }).data.box;
}
