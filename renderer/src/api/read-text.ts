/** Reads a response body as text, chunk by chunk, until it ends. */
export async function readText(body: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<void> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onText(value);
  }
}
