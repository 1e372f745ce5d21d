/** How much of the log the page holds at once before handing it to the browser's blob store. */
const SLICE_BYTES = 4 * 1024 * 1024;

/**
 * The whole log as a Blob, read in slices: every 4 MiB the chunks read so far join the Blob and are
 * let go, so the page never holds the log as one string (the browser keeps a Blob's bytes itself and
 * spills large ones to disk). The download is as large as what the engine keeps (`--box-log-limit`).
 */
export async function readLogBlob(body: ReadableStream<Uint8Array>): Promise<Blob> {
  let blob = new Blob([], { type: 'text/plain' });
  let parts: Uint8Array<ArrayBuffer>[] = [];
  let held = 0;
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (value) {
      parts.push(value as Uint8Array<ArrayBuffer>);
      held += value.length;
    }
    if (held >= SLICE_BYTES || (done && parts.length > 0)) {
      blob = new Blob([blob, ...parts], { type: 'text/plain' });
      parts = [];
      held = 0;
    }
    if (done) return blob;
  }
}
