/**
 * Splits the engine's multiplexed exec stream (8-byte header: stream type,
 * 3 zero bytes, big-endian length) into channel-tagged payloads, across
 * chunk boundaries.
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
