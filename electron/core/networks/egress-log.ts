import type { EgressRecord } from '../../../shared/schemas/egress';
import type { EventBus } from '../events/event-bus';

/** How many records a box's log keeps (the oldest go first). */
export const EGRESS_LOG_LIMIT = 500;
/** Denial events per box: a burst of this many, then one per DENIED_EVENT_EVERY_MS. */
const DENIED_EVENT_BURST = 5;
const DENIED_EVENT_EVERY_MS = 2_000;
/** `box.egress` (new records) at most once per box in this long. */
const NEW_RECORDS_EVENT_EVERY_MS = 1_000;

/**
 * What a source of records gives for one connection: the packet filter's helper (an address),
 * later the egress proxy (a host name). `host` is a name or an address.
 */
export interface EgressRecordInput {
  host: string;
  port: number;
  allowed: boolean;
  bytes: number;
  protocol?: EgressRecord['protocol'];
  /** The IPv4 address, where known. */
  address?: string | null;
  /** When the connection began (default now). */
  at?: Date;
}

/** Where the log sends its events, and how it names a box in them (null: the box is gone). */
export interface EgressLogDeps {
  bus: Pick<EventBus, 'emit'>;
  boxOf(boxId: string): { project: string; name: string } | null;
  limit?: number;
  now?: () => number;
}

interface BoxLog {
  records: EgressRecord[];
  next: number;
  /** Denial events the box may still send now, and when it last earned one. */
  tokens: number;
  refilledAt: number;
  suppressed: number;
  /** The pending `box.egress` event's timer, if one waits. */
  pending: NodeJS.Timeout | null;
  lastEventAt: number;
}

/**
 * The egress log (docs/security.md, "The egress log"): each box's recent connections, in memory,
 * bounded per box (EGRESS_LOG_LIMIT). In memory, not SQLite: it is a recent view written at the
 * rate a box connects, and a write (with its fsync) per connection is not worth keeping records a
 * restart of the core may lose. Denials are `box.egress.denied` events, rate-limited per box;
 * new records are a `box.egress` event at most once a second per box.
 */
export class EgressLog {
  private readonly boxes = new Map<string, BoxLog>();
  private readonly limit: number;
  private readonly now: () => number;

  constructor(private readonly deps: EgressLogDeps) {
    this.limit = deps.limit ?? EGRESS_LOG_LIMIT;
    this.now = deps.now ?? Date.now;
  }

  /**
   * Records one connection of the box (the one call a source of records makes, e.g. the egress
   * proxy: `egressLog.record(boxId, {host, port, allowed, bytes})`). A box that is gone records nothing.
   */
  record(boxId: string, input: EgressRecordInput): EgressRecord | null {
    const box = this.deps.boxOf(boxId);
    if (!box) return null;
    const log = this.logOf(boxId);
    const record: EgressRecord = {
      id: log.next++,
      at: (input.at ?? new Date(this.now())).toISOString(),
      host: input.host,
      address: input.address ?? null,
      port: input.port,
      protocol: input.protocol ?? 'tcp',
      allowed: input.allowed,
      bytes: Math.max(0, Math.round(input.bytes)),
    };
    log.records.push(record);
    if (log.records.length > this.limit) log.records.splice(0, log.records.length - this.limit);
    if (!record.allowed) this.denied(boxId, log, box, record);
    this.announce(boxId, log);
    return record;
  }

  /** The box's records, oldest first; with `after`, only those newer than that id. */
  list(boxId: string, after = 0): EgressRecord[] {
    const records = this.boxes.get(boxId)?.records ?? [];
    return after > 0 ? records.filter((r) => r.id > after) : [...records];
  }

  /** The box is gone: its log goes. */
  forget(boxId: string): void {
    const log = this.boxes.get(boxId);
    if (log?.pending) clearTimeout(log.pending);
    this.boxes.delete(boxId);
  }

  dispose(): void {
    for (const id of [...this.boxes.keys()]) this.forget(id);
  }

  private logOf(boxId: string): BoxLog {
    let log = this.boxes.get(boxId);
    if (!log) {
      const at = this.now();
      log = {
        records: [],
        next: 1,
        tokens: DENIED_EVENT_BURST,
        refilledAt: at,
        suppressed: 0,
        pending: null,
        lastEventAt: 0,
      };
      this.boxes.set(boxId, log);
    }
    return log;
  }

  /** A denial event unless the box has used its share: those held back are counted in the next one. */
  private denied(boxId: string, log: BoxLog, box: { project: string; name: string }, record: EgressRecord): void {
    const now = this.now();
    const earned = Math.floor((now - log.refilledAt) / DENIED_EVENT_EVERY_MS);
    if (earned > 0) {
      log.tokens = Math.min(DENIED_EVENT_BURST, log.tokens + earned);
      log.refilledAt += earned * DENIED_EVENT_EVERY_MS;
    }
    if (log.tokens < 1) {
      log.suppressed++;
      return;
    }
    log.tokens--;
    this.deps.bus.emit(
      'box.egress.denied',
      { box: box.name, id: boxId, record, suppressed: log.suppressed },
      box.project,
    );
    log.suppressed = 0;
  }

  /** One `box.egress` event now, or once the second since the last has passed. */
  private announce(boxId: string, log: BoxLog): void {
    if (log.pending) return;
    const send = () => {
      log.pending = null;
      const box = this.deps.boxOf(boxId);
      const last = log.records.at(-1);
      if (!box || !last || this.boxes.get(boxId) !== log) return;
      log.lastEventAt = this.now();
      this.deps.bus.emit('box.egress', { box: box.name, id: boxId, last: last.id }, box.project);
    };
    const wait = log.lastEventAt + NEW_RECORDS_EVENT_EVERY_MS - this.now();
    if (wait <= 0) return send();
    log.pending = setTimeout(send, wait);
    log.pending.unref();
  }
}
