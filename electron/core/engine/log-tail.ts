import type { Readable } from 'node:stream';

/** Lines of a container's output quoted in a status or failure reason. */
export const REASON_TAIL_LINES = 10;
const REASON_OUTPUT_CHARS = 2000;

/** A stream's bytes as text, read whole (a helper's output, a log's end: short). */
export async function readText(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(parts).toString('utf8');
}

/** The end of a log stream as text, at most REASON_OUTPUT_CHARS. */
export async function readTail(stream: Readable): Promise<string> {
  const text = await readText(stream);
  return text.length > REASON_OUTPUT_CHARS ? `…${text.slice(-REASON_OUTPUT_CHARS)}` : text;
}
