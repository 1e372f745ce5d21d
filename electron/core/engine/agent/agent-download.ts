import type net from 'node:net';
import { Readable, type Writable } from 'node:stream';
import { EngineError } from '../container-engine';
import { ENGINE_SERVES, ToEngine, headIn, q, readContent, refusalOf, requestHead, type Head } from './agent-content';
import { giveBuffer, pooledLine, type PooledLine } from './pooled-line';

/**
 * A file's bytes from the box agent (GET /v1/files/content) read into reused buffers
 * (pooled-line.ts), and written from those into the download's answer as they are: no buffer
 * made per read, no stream stage between the two sockets. Anything else that reads the body as a
 * stream gets copies, as from any socket.
 */

/**
 * Something the body can write itself into: an HTTP answer, or a socket. Its write callback must
 * come once the bytes are handed on (written to the kernel), as a socket's does: the buffer is
 * read into again after it. A stream that calls back as it buffers (a PassThrough) is not one.
 */
export type BodySink = Pick<Writable, 'write' | 'end' | 'once' | 'writableLength'>;

/** Bytes written into the answer and not yet taken by its socket before reads pause (a few buffers' worth). */
const IN_FLIGHT = 2 * 1024 * 1024;

/**
 * Exactly `size` bytes of the line after the head. Ending short is an error, so a download's
 * client sees a cut connection, never a short file.
 */
class ContentBody extends Readable {
  private left: number;
  private started = false;

  constructor(
    private readonly line: PooledLine,
    private readonly size: number,
    private first: Buffer | null,
  ) {
    super({ highWaterMark: 1024 * 1024 });
    this.left = size;
    const short = () => {
      if (this.left !== 0) this.destroy(new Error(`the box agent's answer ended ${this.left} bytes short of ${size}`));
    };
    line.socket.on('end', short).on('close', short);
    line.socket.on('error', (err) => this.destroy(err));
  }

  /** Takes `n` more bytes off what is left; false (and the body failed) when they are more than promised. */
  private counted(n: number): boolean {
    this.left -= n;
    if (this.left >= 0) return true;
    this.destroy(new Error(`the box agent's answer is longer than its ${this.size} bytes`));
    return false;
  }

  private begin(): boolean {
    if (this.started) return false;
    this.started = true;
    return true;
  }

  /** Writes the bytes into `sink` from the buffers they were read into, and ends it after the last. */
  sendInto(sink: BodySink): void {
    if (!this.begin()) throw new Error('the body is already being read');
    const { socket } = this.line;
    const finished = () => {
      if (this.left !== 0) return false;
      sink.end();
      this.resume(); // nothing is pushed: this ends the stream (and closes the line)
      this.push(null);
      return true;
    };
    const first = this.first;
    this.first = null;
    if (first && this.counted(first.length)) sink.write(first);
    if (this.destroyed || finished()) return;
    this.line.read((bytes, keep) => {
      if (!this.counted(bytes.length)) return false;
      const whole = keep();
      // Every write of a read's worth is over the answer's high-water mark: a few may be in
      // flight before the reads wait for the answer's drain.
      const more = sink.write(bytes, () => giveBuffer(whole)) || sink.writableLength < IN_FLIGHT;
      if (finished()) return false;
      if (!more) sink.once('drain', () => socket.resume());
      return more;
    });
    socket.resume();
  }

  override _read(): void {
    if (this.begin()) {
      if (this.first && this.counted(this.first.length)) this.push(this.first);
      this.first = null;
      if (this.left === 0) return void this.push(null);
      this.line.read((bytes) => {
        if (!this.counted(bytes.length)) return false;
        const more = this.push(Buffer.from(bytes));
        if (this.left === 0) this.push(null);
        return more && this.left > 0;
      });
    }
    this.line.socket.resume();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.line.socket.destroy();
    callback(err);
  }
}

/** The answer's head off the line, and the bytes read after it (copied: the buffer is read into again). */
function headOf(line: PooledLine, timeoutMs: number): Promise<{ head: Head; after: Buffer | null }> {
  return new Promise((resolve, reject) => {
    const { socket } = line;
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => done(new ToEngine(true)), timeoutMs);
    const done = (err: Error | null, found?: { head: Head; after: Buffer | null }) => {
      clearTimeout(timer);
      socket.off('end', onEnd).off('error', done);
      line.read(() => false);
      if (err) {
        socket.destroy();
        return reject(err);
      }
      resolve(found!);
    };
    const onEnd = () => done(new Error('the box agent closed the connection before it answered'));
    socket.once('end', onEnd).once('error', done);
    line.read((bytes) => {
      pending = Buffer.concat([pending, bytes]);
      const found = headIn(pending);
      if (!found) return true;
      if (found instanceof Error) done(found);
      else
        done(null, { head: found.head, after: pending.length > found.length ? pending.subarray(found.length) : null });
      return false;
    });
  });
}

/** The rest of the line as text (a refusal's JSON; the agent closes after it). */
function restOf(line: PooledLine, after: Buffer | null): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts = after ? [after] : [];
    line.read((bytes) => parts.push(Buffer.from(bytes)) > 0);
    line.socket.once('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    line.socket.once('error', reject);
    line.socket.resume();
  });
}

/** A regular file's bytes from the agent (its parents' links resolved in the box, the file itself not followed). */
export async function readFileContent(
  socket: net.Socket,
  path: string,
  answeredWithinMs: number,
): Promise<{ size: number; stream: Readable }> {
  const line = pooledLine(socket);
  if (!line) return readContent(socket, path, answeredWithinMs);
  line.socket.write(requestHead('GET', `/v1/files/content?path=${q(path)}`));
  const { head, after } = await headOf(line, answeredWithinMs);
  if (head.status !== 200) {
    if (head.status === ENGINE_SERVES) {
      line.socket.destroy();
      throw new ToEngine();
    }
    const text = await restOf(line, after).catch(() => `the box agent's answer was cut off (${head.status})`);
    throw refusalOf(head.status, text);
  }
  const size = Number(head.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size < 0) {
    line.socket.destroy();
    throw new EngineError('failed', 'the box agent answered a file without its length');
  }
  return { size, stream: new ContentBody(line, size, after) };
}
