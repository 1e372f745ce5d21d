import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { ContainerEngine } from '../engine/container-engine';

/**
 * An HTTP agent whose connections come from the engine driver's `connect`:
 * the driver decides how a box's port is reached (a routable container
 * address on Linux; a tunnel where containers live in a VM). Keep-alive
 * connections are pooled per container and port, so a page's many requests
 * do not each pay for a new connection.
 */
export class BoxAgent extends http.Agent {
  constructor(private readonly engine: ContainerEngine) {
    super({ keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 64, scheduling: 'lifo' });
  }

  // The target's "host" is the container id; the pool is keyed by it and the port.
  override createConnection(options: http.ClientRequestArgs, callback?: (err: Error | null, socket: Duplex) => void): Duplex | undefined {
    const containerId = String(options.host);
    const port = Number(options.port);
    this.engine.connect(containerId, port).then(
      (socket) => {
        socket.setNoDelay(true);
        callback!(null, socket);
      },
      (err: Error) => callback!(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

export type ListenerKind = 'loopback-only' | 'none' | 'any' | 'unknown';

/**
 * Who listens on `port` inside the box, read from /proc/net/tcp{,6} through an
 * exec: a server bound to the box's own 127.0.0.1 (vite's default) cannot be
 * reached from outside the box, and the 502 page should say so.
 */
export async function listenerOf(engine: ContainerEngine, containerId: string, port: number): Promise<ListenerKind> {
  try {
    const execId = await engine.createExec(containerId, { command: ['cat', '/proc/net/tcp', '/proc/net/tcp6'], env: {}, tty: false, stdin: false });
    const streams = await engine.startExec(execId, { tty: false, stdin: false });
    const chunks: Buffer[] = [];
    streams.stderr.resume();
    const timer = setTimeout(() => streams.close(), 3000);
    for await (const chunk of streams.stdout) chunks.push(chunk as Buffer);
    clearTimeout(timer);
    return classifyListeners(Buffer.concat(chunks).toString('utf8'), port);
  } catch {
    return 'unknown';
  }
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
