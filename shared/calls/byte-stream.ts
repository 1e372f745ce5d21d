// shared/ sees no DOM or Node types; both platforms have TextDecoder.
type Decoder = { decode(bytes?: Uint8Array, options?: { stream: boolean }): string };
export const TextDecoder = (globalThis as unknown as { TextDecoder: new () => Decoder }).TextDecoder;

/** A response body: a web ReadableStream (browsers, Node's fetch) or any async iterable of bytes. */
export type ByteStream =
  | AsyncIterable<Uint8Array>
  | { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void } };

/** The chunks of a body as they arrive, whichever kind it is. */
export async function* chunksOf(body: ByteStream): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in body) {
    yield* body;
    return;
  }
  // Chromium's ReadableStream is not async iterable yet.
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The body's lines (without their line ends) as they arrive; the last one even without a newline. */
export async function* linesOf(body: ByteStream): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of chunksOf(body)) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered !== '') yield buffered;
}

/** An application/x-ndjson body (exec and stats streams): each non-blank line parsed as it arrives. */
export async function* readNdjson<T>(body: ByteStream): AsyncGenerator<T> {
  for await (const line of linesOf(body)) if (line.trim() !== '') yield JSON.parse(line) as T;
}
