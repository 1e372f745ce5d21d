import { Readable, type Duplex } from 'node:stream';
import type { ExecStreams } from './container-engine';

// The exec stream framing the engine's API and Boxdesk's box agent share (docs/protocol.md).

/**
 * Splits a multiplexed exec stream (the engine's, and the box agent's) (8-byte header: stream type,
 * 3 zero bytes, big-endian length) into channel-tagged payloads, across
 * chunk boundaries. Payloads are views of the chunk, not copies.
 */
export class StreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (channel: 1 | 2, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buf.length >= 8) {
      const size = buf.readUInt32BE(4);
      if (buf.length < 8 + size) break;
      const channel = buf[0] === 2 ? 2 : 1;
      if (size > 0) this.onFrame(channel, buf.subarray(8, 8 + size));
      buf = buf.subarray(8 + size);
    }
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  }
}

/** With a tty the engine sends plain bytes: the connection itself is stdout, no copy in between. */
export function ttyStreams(raw: Duplex, stdin: boolean): ExecStreams {
  const stderr = new Readable({ read() {} });
  const endStderr = () => stderr.push(null);
  raw.once('end', endStderr);
  raw.once('close', endStderr);
  return { stdout: raw, stderr, stdin: stdin ? raw : null, close: () => raw.destroy() };
}

/**
 * Without a tty: stdout and stderr are readables fed by the demuxer. When a
 * consumer stops reading (its buffer is full), the connection is paused, so
 * flow control reaches the engine.
 */
export function demuxedStreams(raw: Duplex, stdin: boolean): ExecStreams {
  const read = () => {
    if (raw.isPaused()) raw.resume();
  };
  const stdout = new Readable({ read });
  const stderr = new Readable({ read });
  const demux = new StreamDemuxer((channel, payload) => {
    if (!(channel === 1 ? stdout : stderr).push(payload)) raw.pause();
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stdout.push(null);
    stderr.push(null);
  };
  raw.on('data', (chunk: Buffer) => demux.push(chunk));
  raw.on('end', end);
  raw.on('close', end);
  raw.on('error', (err: Error) => {
    ended = true;
    stdout.destroy(err);
    stderr.destroy(err);
  });
  return { stdout, stderr, stdin: stdin ? raw : null, close: () => raw.destroy() };
}
