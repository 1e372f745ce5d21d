import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { UpstreamTimeouts } from './box-connector';

/** A route the edge answers itself (agent/internal/edge: Route). */
export interface EdgeRoute {
  /** The Host header exactly as clients send it. */
  host: string;
  /** The box id: the edge reports its use under it. */
  box: string;
  /** The box's address and port, as the Node proxy dials them. */
  upstream: string;
  /** The box's published port (for the 504 page). */
  port: number;
}

/** A box's use through the edge since the last report. */
export interface EdgeUsage {
  requests: number;
  bytes: number;
}

export interface EdgeEvents {
  activity(boxes: Record<string, EdgeUsage>): void;
  /** The edge could not connect to the route's address: the core forgets it. */
  stale(box: string, upstream: string): void;
  /** The edge ended without being asked to (a crash, a kill): `why` says how. */
  exit(why: string): void;
}

type EdgeLine =
  | { type: 'listening'; port: number }
  | { type: 'error'; message: string }
  | { type: 'ack'; seq: number }
  | { type: 'activity'; boxes: Record<string, EdgeUsage> }
  | { type: 'stale'; box: string; upstream: string };

/** How long a push may wait for the edge to apply it (a pause waits on it). */
const ACK_MS = 1000;

/**
 * The edge (agent/cmd/boxdesk-edge) as a child process of the core: it listens on the proxy's
 * public port and hears routes on its stdin, one JSON line per push; it answers on stdout. Its
 * stdin's end (the core gone, even by kill -9) ends it.
 */
export class EdgeProcess {
  private child: ChildProcess | null = null;
  private seq = 0;
  private readonly acks = new Map<number, () => void>();
  private stopping = false;

  constructor(
    private readonly binary: string,
    private readonly events: EdgeEvents,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Starts the edge on host:port (0: a free one); resolves with the port it got, rejects with why
   * it could not. `sharePort`: bound with SO_REUSEPORT, beside the Node proxy's own listener.
   */
  start(
    host: string,
    port: number,
    nodeSocket: string,
    timeouts: UpstreamTimeouts,
    sharePort = false,
  ): Promise<number> {
    const listen = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const child = spawn(
      this.binary,
      [
        ...['--listen', listen, '--node', nodeSocket],
        ...['--connect-timeout-ms', String(timeouts.connectMs), '--header-timeout-ms', String(timeouts.headersMs)],
        ...(sharePort ? ['--reuse-port'] : []),
        ...(process.env.BOXDESK_EDGE_NET_HTTP_ONLY === '1' ? ['--net-http-only'] : []),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.child = child;
    return new Promise<number>((resolve, reject) => {
      let listening = false;
      const lines = readline.createInterface({ input: child.stdout! });
      lines.on('line', (text) => {
        let line: EdgeLine;
        try {
          line = JSON.parse(text) as EdgeLine;
        } catch {
          return;
        }
        if (line.type === 'listening') {
          listening = true;
          resolve(line.port);
        } else if (line.type === 'error') reject(listenError(line.message, port));
        else if (line.type === 'ack') this.acked(line.seq);
        else if (line.type === 'activity') this.events.activity(line.boxes);
        else if (line.type === 'stale') this.events.stale(line.box, line.upstream);
      });
      child.stdin!.on('error', () => undefined); // a dead edge's pipe: its exit says so
      child.once('error', (err) => reject(new Error(`the edge could not start: ${err.message}`)));
      child.once('exit', (code, signal) => {
        this.child = null;
        for (const done of this.acks.values()) done();
        this.acks.clear();
        if (!listening) return reject(new Error(`the edge ended before it listened (exit ${code ?? signal})`));
        if (!this.stopping) this.events.exit(signal ? `killed by ${signal}` : `exit code ${code}`);
      });
    });
  }

  /** Replaces the edge's routes; resolves once it applies them (or after ACK_MS, or at once without an edge). */
  push(routes: EdgeRoute[]): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.resolve();
    const seq = ++this.seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(), ACK_MS);
      const done = () => {
        clearTimeout(timer);
        this.acks.delete(seq);
        resolve();
      };
      this.acks.set(seq, done);
      stdin.write(JSON.stringify({ type: 'routes', seq, routes }) + '\n');
    });
  }

  private acked(seq: number): void {
    // Pushes are applied in order: an ack answers every push up to it.
    for (const [s, done] of this.acks) if (s <= seq) done();
  }

  /** Ends the edge: its stdin closes (it exits at once), then a kill if it lingers. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  }
}

function listenError(message: string, port: number): Error {
  return new Error(
    /address already in use/.test(message)
      ? `the preview proxy's port ${port} is in use; choose another with --proxy-port (0 picks a free one)`
      : `the preview proxy's edge could not listen: ${message}`,
  );
}
