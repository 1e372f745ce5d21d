/**
 * Output waiting for the terminal. A chunk arriving while the terminal is
 * idle is written at once (a keystroke's echo waits for no frame); otherwise
 * chunks are written in batches once per animation frame, at most two batches
 * in flight (xterm's write callback says when one is parsed), so a `yes` flood
 * cannot freeze the window; past the cap the oldest output is dropped, so
 * memory stays bounded.
 */
export interface TerminalSink {
  write(data: Uint8Array | string, callback?: () => void): void;
}

const BATCH_BYTES = 256 * 1024;
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;
const MAX_IN_FLIGHT = 2;
/** Up to this much, output that finds the terminal idle skips the frame wait. */
const IMMEDIATE_BYTES = 16 * 1024;

export class OutputQueue {
  private chunks: Uint8Array[] = [];
  private queued = 0;
  private dropped = 0;
  private inFlight = 0;
  private frame: number | null = null;
  private disposed = false;

  constructor(private readonly sink: TerminalSink) {}

  push(chunk: Uint8Array): void {
    if (this.disposed) return;
    this.chunks.push(chunk);
    this.queued += chunk.byteLength;
    while (this.queued > MAX_QUEUED_BYTES && this.chunks.length > 1) {
      const old = this.chunks.shift()!;
      this.queued -= old.byteLength;
      this.dropped += old.byteLength;
    }
    if (this.inFlight === 0 && this.frame === null && this.queued <= IMMEDIATE_BYTES) this.flush();
    else this.schedule();
  }

  /** Forgets what is queued (a reattach replays the screen anew). */
  clear(): void {
    this.chunks = [];
    this.queued = 0;
    this.dropped = 0;
  }

  dispose(): void {
    this.disposed = true;
    this.clear();
    if (this.frame !== null) cancelAnimationFrame(this.frame);
  }

  private schedule(): void {
    if (this.frame !== null || this.disposed) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.chunks.length > 0) {
      if (this.dropped > 0) {
        this.sink.write(
          `\r\n\x1b[2m[… ${Math.round(this.dropped / 1024)} KiB of output skipped to keep up …]\x1b[0m\r\n`,
        );
        this.dropped = 0;
      }
      let size = 0;
      let n = 0;
      while (n < this.chunks.length && (n === 0 || size + this.chunks[n]!.byteLength <= BATCH_BYTES))
        size += this.chunks[n++]!.byteLength;
      const parts = this.chunks.splice(0, n);
      this.queued -= size;
      let batch: Uint8Array;
      if (parts.length === 1) batch = parts[0]!;
      else {
        batch = new Uint8Array(size);
        let at = 0;
        for (const p of parts) {
          batch.set(p, at);
          at += p.byteLength;
        }
      }
      this.inFlight++;
      this.sink.write(batch, () => {
        this.inFlight--;
        if (this.chunks.length > 0) this.schedule();
      });
    }
  }
}
