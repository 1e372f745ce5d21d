import type { BoxdeskEvent, EventType } from '../../../shared/events';

type Listener = (event: BoxdeskEvent) => void;

/**
 * Every state change, numbered. The last `capacity` events are kept so a
 * client that reconnects with Last-Event-ID misses nothing recent.
 */
export class EventBus {
  private readonly ring: BoxdeskEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private seq = 0;
  /** Ids are `<epoch>-<seq>`: an id from before a restart is recognised as unknown, not misread. */
  readonly epoch = Date.now().toString(36);

  /** The kinds the modules declared (core.ts); emitting another is a bug. Unset (a test of one piece): any. */
  private declared: ReadonlySet<string> | null = null;

  constructor(private readonly capacity = 2048) {}

  declareKinds(kinds: Iterable<string>): void {
    this.declared = new Set(kinds);
  }

  emit<T extends EventType>(type: T, data: Extract<BoxdeskEvent, { type: T }>['data'], project: string | null): void {
    if (this.declared && !this.declared.has(type))
      throw new Error(`the event kind "${type}" is declared by no module (CoreModule.events)`);
    const event = {
      id: `${this.epoch}-${++this.seq}`,
      type,
      data,
      project,
      time: new Date().toISOString(),
    } as BoxdeskEvent;
    this.ring.push(event);
    if (this.ring.length > this.capacity) this.ring.shift();
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events after `lastId`, or null when that id is unknown or too old to replay. */
  since(lastId: string): BoxdeskEvent[] | null {
    const [epoch, seqText] = lastId.split('-');
    const seq = Number(seqText);
    if (epoch !== this.epoch || !Number.isInteger(seq) || seq > this.seq) return null;
    const oldest = this.ring[0];
    const oldestSeq = oldest ? Number(oldest.id.split('-')[1]) : this.seq + 1;
    if (seq < oldestSeq - 1) return null;
    return this.ring.filter((e) => Number(e.id.split('-')[1]) > seq);
  }
}
