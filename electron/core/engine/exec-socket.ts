import { Duplex } from 'node:stream';
import type { ExecStreams } from './container-engine';

/**
 * An exec's stdin and stdout as a socket: a connection relayed by a process in the box (the
 * box agent's `relay`, nc or socat). Looks enough like a socket for an HTTP agent and for upgrades.
 */
export class ExecSocket extends Duplex {
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
