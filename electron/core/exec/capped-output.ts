import { StringDecoder } from 'node:string_decoder';
import type { ExecStreamLine } from '../../../shared/schemas/exec';

type Channel = 1 | 2;

/**
 * An exec's output, capped per stream at `limit` bytes: kept for the answer, or handed on as
 * text as it comes (`onChunk`, the x-ndjson stream). Past the cap the rest is dropped and the
 * answer says `truncated`.
 */
export class CappedOutput {
  truncated = false;
  private readonly out = {
    1: { parts: [] as Buffer[], size: 0, decoder: new StringDecoder('utf8') },
    2: { parts: [] as Buffer[], size: 0, decoder: new StringDecoder('utf8') },
  };

  constructor(
    private readonly limit: number,
    private readonly onChunk?: (line: ExecStreamLine) => void,
  ) {}

  /** A sink for one stream's bytes (1: stdout, 2: stderr). */
  collect(channel: Channel): (payload: Buffer) => void {
    return (payload) => {
      const o = this.out[channel];
      const room = this.limit - o.size;
      if (room <= 0) {
        this.truncated = true;
        return;
      }
      const kept = payload.length > room ? payload.subarray(0, room) : payload;
      if (kept.length < payload.length) this.truncated = true;
      o.size += kept.length;
      if (this.onChunk) {
        const text = o.decoder.write(kept);
        if (text) this.onChunk({ type: channel === 1 ? 'stdout' : 'stderr', data: text });
      } else {
        o.parts.push(kept);
      }
    };
  }

  /** What was kept of a stream ('' when it was handed on). */
  text(channel: Channel): string {
    return this.onChunk ? '' : Buffer.concat(this.out[channel].parts).toString('utf8');
  }

  /** Hands on what the decoders still hold (a character cut at the end of a chunk). */
  flush(): void {
    if (!this.onChunk) return;
    for (const [channel, o] of Object.entries(this.out)) {
      const rest = o.decoder.end();
      if (rest) this.onChunk({ type: channel === '1' ? 'stdout' : 'stderr', data: rest });
    }
  }
}
