import type { FastifyBaseLogger } from 'fastify';
import net from 'node:net';
import { parseJsonObject } from '../../../shared/json-object';
import { EGRESS_PROTOCOLS, type EgressRecord } from '../../../shared/schemas/egress';
import type { EgressRecordInput } from './egress-log';

/** How long the helper may take to open a box's log sockets. */
const READY_WAIT_MS = 5_000;

/** A box's watch by the packet filter's helper: its records come until it is closed or the box stops. */
export interface EgressWatch {
  close(): void;
}

/**
 * One line the helper sends on a watch (agent/internal/netfilter/egress_tracker.go), as the log
 * takes it: a record, `ready`, an error, or null for a line that is none of these.
 */
export function parseWatchLine(line: string): EgressRecordInput | { ready: true } | { error: string } | null {
  const v = parseJsonObject(line);
  if (v === null) return null;
  if (v.ready === true) return { ready: true };
  if (typeof v.error === 'string') return { error: v.error };
  const { at, protocol, address, port, host, allowed, bytes } = v;
  if (typeof at !== 'number' || typeof address !== 'string' || typeof port !== 'number') return null;
  if (typeof allowed !== 'boolean' || typeof bytes !== 'number') return null;
  const known = (EGRESS_PROTOCOLS as readonly string[]).includes(protocol as string);
  return {
    at: new Date(at),
    protocol: known ? (protocol as EgressRecord['protocol']) : 'ip',
    address,
    host: typeof host === 'string' && host ? host : address,
    port: Math.max(0, Math.min(65535, Math.round(port))),
    allowed,
    bytes,
  };
}

/**
 * Asks the helper on its socket to watch the box's network namespace (container `containerId`,
 * main process `pid`): resolves once it listens (NFLOG and conntrack's events there), then calls
 * `onRecord` for each record until the box stops (`onEnd`) or the watch is closed.
 */
export function openEgressWatch(
  socket: string,
  containerId: string,
  pid: number,
  onRecord: (record: EgressRecordInput) => void,
  onEnd: () => void,
): Promise<EgressWatch> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    let ready = false;
    let rest = '';
    const fail = (err: Error) => {
      conn.destroy();
      if (!ready) reject(err);
    };
    const timer = setTimeout(
      () => fail(new Error("the packet filter's helper did not start the box's egress log")),
      READY_WAIT_MS,
    );
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        const parsed = parseWatchLine(line);
        if (!parsed) continue;
        if ('error' in parsed) return fail(new Error(`the box's egress log could not start: ${parsed.error}`));
        if ('ready' in parsed) {
          ready = true;
          clearTimeout(timer);
          resolve({ close: () => conn.destroy() });
        } else onRecord(parsed);
      }
    });
    conn.on('error', (err) => fail(err));
    conn.on('close', () => {
      clearTimeout(timer);
      if (ready) onEnd();
      else reject(new Error("the packet filter's helper ended the box's egress log before it started"));
    });
    // The helper reads the request line; the connection stays open both ways (closing ours ends the watch).
    conn.write(`${JSON.stringify({ pid, container: containerId, watch: true })}\n`);
  });
}

/** Where a box's watch is opened: the packet filter's helper, in the box's namespace. */
type OpenWatch = (
  containerId: string,
  pid: number,
  onRecord: (record: EgressRecordInput) => void,
  onEnd: () => void,
) => Promise<EgressWatch | null>;

/** The egress log's watch of each running box, by box id: one at a time a box, closed as it goes. */
export class EgressWatches {
  private readonly watches = new Map<string, EgressWatch>();

  constructor(
    private readonly deps: {
      open: OpenWatch;
      record(boxId: string, record: EgressRecordInput): void;
      log: Pick<FastifyBaseLogger, 'warn'>;
    },
  ) {}

  has(boxId: string): boolean {
    return this.watches.has(boxId);
  }

  /**
   * Starts the watch of the running box (its previous one closed). A watch that cannot start
   * leaves the box running without its log, and says so in the core's log.
   */
  async start(box: { id: string; project: string; name: string }, state: { id: string; pid: number }): Promise<void> {
    this.close(box.id);
    try {
      let watch: EgressWatch | null = null;
      const ended = () => {
        if (watch && this.watches.get(box.id) === watch) this.watches.delete(box.id);
      };
      watch = await this.deps.open(state.id, state.pid, (r) => this.deps.record(box.id, r), ended);
      if (watch) this.watches.set(box.id, watch);
    } catch (err) {
      this.deps.log.warn({ err, box: box.name, project: box.project }, 'the egress log of the box could not start');
    }
  }

  close(boxId: string): void {
    this.watches.get(boxId)?.close();
    this.watches.delete(boxId);
  }

  closeAll(): void {
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }
}
