import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import { execRelay, RELAY_PROBE } from './exec-relay';

// Node's Agent passes every request made through it to addRequest (before a socket is assigned,
// so before the response parser is made); @types/node does not declare it.
declare module 'http' {
  interface Agent {
    addRequest(req: ClientRequest, options: RequestOptions): void;
  }
}

/** How long the proxy waits on a box, in milliseconds (0: no limit). */
export interface UpstreamTimeouts {
  /** For a connection to the box's port (the engine's dial, or a relay in the box). */
  connectMs: number;
  /** For the response headers, from the moment the request (with its body) is sent. */
  headersMs: number;
}

/** A box took longer than its time: the proxy answers 504. */
export class UpstreamTimeoutError extends Error {
  constructor(
    readonly phase: 'connect' | 'headers',
    readonly ms: number,
    readonly port: number,
  ) {
    super(
      phase === 'connect'
        ? `the box did not accept a connection on port ${port} within ${ms / 1000} s; its server may be stuck or overloaded (the limit is --proxy-connect-timeout)`
        : `the box's server on port ${port} took the request but sent no answer within ${ms / 1000} s; it may be stuck, or slower than --proxy-header-timeout allows`,
    );
    this.name = 'UpstreamTimeoutError';
  }
}

/**
 * An HTTP agent whose connections come from the engine driver's `connect`:
 * the driver decides how a box's port is reached (a routable container
 * address on Linux; a tunnel where containers live in a VM). Keep-alive
 * connections are pooled per container and port, so a page's many requests
 * do not each pay for a new connection. It is the proxy's upstream side, so
 * what is lenient or bounded about talking to boxes lives here: connect and
 * response-header timeouts, and a response parser as tolerant as nginx's and
 * browsers' (header lines ended by a bare LF, as busybox httpd CGI scripts
 * print them). The proxy's own server stays strict with clients.
 */
export class BoxAgent extends http.Agent {
  /** Ports found listening only on the box's loopback, reached through a relay for a while without asking again. */
  private readonly relayed = new Map<string, { address: string; until: number }>();

  constructor(
    private readonly engine: ContainerEngine,
    private readonly timeouts: UpstreamTimeouts = { connectMs: 0, headersMs: 0 },
    /** Hears the address of each plain TCP connection made to a box's port (the edge dials it too). */
    private readonly onDirect: (containerId: string, port: number, address: string) => void = () => undefined,
  ) {
    super({ keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 64, scheduling: 'lifo' });
  }

  override addRequest(req: http.ClientRequest, options: http.RequestOptions): void {
    // Read when the socket is assigned (the parser is made then): lenient for this response only.
    (req as { insecureHTTPParser?: boolean }).insecureHTTPParser = true;
    if (this.timeouts.headersMs > 0) armHeaderTimeout(req, this.timeouts.headersMs, Number(options.port));
    super.addRequest(req, options);
  }

  // The target's "host" is the container id; the pool is keyed by it and the port.
  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (err: Error | null, socket: Duplex) => void,
  ): Duplex | undefined {
    const port = Number(options.port);
    let settled = false;
    const settle = (err: Error | null, socket?: Duplex) => {
      if (settled) return void socket?.destroy();
      settled = true;
      clearTimeout(timer);
      callback!(err, socket as Duplex);
    };
    const ms = this.timeouts.connectMs;
    const timer = ms > 0 ? setTimeout(() => settle(new UpstreamTimeoutError('connect', ms, port)), ms) : undefined;
    this.connectBox(String(options.host), port).then(
      (socket) => settle(null, socket),
      (err: Error) => settle(err),
    );
    return undefined;
  }

  /**
   * The driver's connection; when it is refused because the server listens
   * only on the box's own loopback (vite's default), a relay through an exec
   * reaches it anyway, where the box has `nc` or `socat`.
   */
  private async connectBox(containerId: string, port: number): Promise<Duplex> {
    const key = `${containerId}:${port}`;
    const relayed = this.relayed.get(key);
    if (relayed && relayed.until > Date.now()) return execRelay(this.engine, containerId, relayed.address, port);
    try {
      const socket = await this.engine.connect(containerId, port);
      socket.setNoDelay(true);
      if (socket instanceof net.Socket && socket.remoteAddress && socket.remotePort)
        this.onDirect(containerId, port, hostPort(socket.remoteAddress, socket.remotePort));
      return socket;
    } catch (err) {
      if (!(err instanceof EngineError) || err.kind !== 'not_found') throw err;
      const probe = await probeListener(this.engine, containerId, port);
      if (probe.kind !== 'loopback-only' || !probe.relay || !probe.address) throw new ListenerError(probe, port);
      if (this.relayed.size > 1000) this.relayed.clear();
      this.relayed.set(key, { address: probe.address, until: Date.now() + 10_000 });
      return execRelay(this.engine, containerId, probe.address, port);
    }
  }
}

function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * From the moment the request (with its body) is sent until its response (or 101) begins: past
 * `ms`, the request fails with an UpstreamTimeoutError. A slow upload is not the box's delay,
 * and once headers came a body may take its time (server-sent events, long polls).
 */
function armHeaderTimeout(req: http.ClientRequest, ms: number, port: number): void {
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    timer = setTimeout(() => req.destroy(new UpstreamTimeoutError('headers', ms, port)), ms);
  };
  const stop = () => clearTimeout(timer);
  req.once('finish', start);
  req.once('response', stop);
  req.once('upgrade', stop);
  req.once('close', stop);
}

/** The driver could not connect; what listens in the box says why. */
export class ListenerError extends Error {
  constructor(
    readonly probe: ListenerProbe,
    readonly port: number,
  ) {
    super(explainListener(probe, port));
    this.name = 'ListenerError';
  }
}

/** What the 502 page says, exactly what to change. */
export function explainListener(probe: ListenerProbe, port: number): string {
  if (probe.kind === 'loopback-only') {
    return `your server listens on ${probe.address ?? '127.0.0.1'}:${port} inside the box, which only the box itself can reach${probe.relay ? '' : ' (and the box has no nc or socat to relay to it)'}; start it on all addresses instead (e.g. --host 0.0.0.0, or bind 0.0.0.0:${port})`;
  }
  return `nothing listens on port ${port} in the box; start your server there on 0.0.0.0:${port}, or publish the port it uses (box publish NAME --port N)`;
}

export type ListenerKind = 'loopback-only' | 'none' | 'any' | 'unknown';

export interface ListenerProbe {
  kind: ListenerKind;
  /** With loopback-only: the address it listens on, as a relay in the box would dial it. */
  address?: string;
  /** Whether the box has nc or socat. */
  relay: boolean;
}

/**
 * Who listens on `port` inside the box, read from /proc/net/tcp{,6} through an
 * exec, and whether the box has a relay: a server bound to the box's own
 * 127.0.0.1 cannot be reached from outside the box.
 */
export async function probeListener(
  engine: ContainerEngine,
  containerId: string,
  port: number,
): Promise<ListenerProbe> {
  try {
    const script = `cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; if ${RELAY_PROBE}; then echo relay=yes; fi`;
    const execId = await engine.createExec(containerId, {
      command: ['sh', '-c', script],
      env: {},
      tty: false,
      stdin: false,
    });
    const streams = await engine.startExec(execId, { tty: false, stdin: false });
    const chunks: Buffer[] = [];
    streams.stderr.resume();
    const timer = setTimeout(() => streams.close(), 3000);
    for await (const chunk of streams.stdout) chunks.push(chunk as Buffer);
    clearTimeout(timer);
    const text = Buffer.concat(chunks).toString('utf8');
    const kind = classifyListeners(text, port);
    return {
      kind,
      relay: /^relay=yes$/m.test(text),
      ...(kind === 'loopback-only' ? { address: loopbackAddress(text, port) } : {}),
    };
  } catch {
    return { kind: 'unknown', relay: false };
  }
}

function loopbackAddress(procNetTcp: string, port: number): string {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const v6 = procNetTcp.split('\n').some((l) => l.includes(`00000000000000000000000001000000:${hexPort}`));
  const v4 = procNetTcp.split('\n').some((l) => new RegExp(`\\s0100007F:${hexPort}\\s`, 'i').test(l));
  return v4 || !v6 ? '127.0.0.1' : '::1';
}

const LOOPBACK_V4 = /^[0-9A-F]{6}7F$/i; // 127.x.x.x, little-endian
const LOOPBACK_V6 = ['00000000000000000000000001000000', '0000000000000000FFFF00000100007F'];

export function classifyListeners(procNetTcp: string, port: number): ListenerKind {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let loopback = false;
  for (const line of procNetTcp.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const [address, localPort] = (fields[1] ?? '').split(':');
    if (fields[3] !== '0A' || localPort?.toUpperCase() !== hexPort || !address) continue; // 0A: LISTEN
    if (LOOPBACK_V4.test(address) || LOOPBACK_V6.includes(address.toUpperCase())) loopback = true;
    else return 'any';
  }
  return loopback ? 'loopback-only' : 'none';
}
