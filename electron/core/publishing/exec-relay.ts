import { Duplex } from 'node:stream';
import type { ContainerEngine, ExecStreams } from '../engine/container-engine';

/** Runs in the box: relays stdin/stdout to 127.0.0.1:PORT with whatever relay the box has. */
const RELAY_SCRIPT = `
if command -v nc >/dev/null 2>&1; then exec nc "$1" "$2"; fi
if command -v socat >/dev/null 2>&1; then exec socat - "TCP:$1:$2"; fi
echo "no nc or socat in the box" >&2; exit 127
`;

/** Whether the box has a relay (nc or socat) on its PATH, or as a busybox applet. */
export const RELAY_PROBE = 'command -v nc >/dev/null 2>&1 || command -v socat >/dev/null 2>&1';

/**
 * A connection to `address:port` as seen from inside the box, carried by an
 * exec of `nc` (or `socat`): how a server bound to the box's own loopback is
 * reached. Looks enough like a socket for an HTTP agent and for upgrades.
 */
export async function execRelay(
  engine: ContainerEngine,
  containerId: string,
  address: string,
  port: number,
): Promise<Duplex> {
  const execId = await engine.createExec(containerId, {
    command: ['sh', '-c', RELAY_SCRIPT, 'boxdesk-relay', address, String(port)],
    env: {},
    tty: false,
    stdin: true,
  });
  return new ExecSocket(await engine.startExec(execId, { tty: false, stdin: true }));
}

class ExecSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';

  constructor(private readonly streams: ExecStreams) {
    super({ allowHalfOpen: false });
    streams.stderr.resume();
    streams.stdout.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) streams.stdout.pause();
    });
    streams.stdout.once('end', () => this.push(null));
    streams.stdout.once('error', (err) => this.destroy(err));
    streams.stdout.once('close', () => this.push(null));
  }

  override _read(): void {
    this.streams.stdout.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.streams.stdin!.write(chunk, callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.streams.stdin!.end();
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.streams.close();
    callback(err);
  }

  // What HTTP clients and proxies call on sockets; an exec stream has no such knobs.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(_ms: number, callback?: () => void): this {
    if (callback) this.once('timeout', callback);
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}
