/** Keeps the newest `capacity` bytes of a stream, for replay on reattach. */
export class OutputRing {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly capacity: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.capacity) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  /** The kept chunks as they came (for channel-framed output). */
  frames(): Buffer[] {
    return [...this.chunks];
  }

  /** The newest bytes, at most `capacity` of them. */
  snapshot(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.length > this.capacity ? all.subarray(all.length - this.capacity) : all;
  }
}
