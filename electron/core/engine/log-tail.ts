import type { Readable } from 'node:stream';

/** Lines of a container's output quoted in a status or failure reason. */
export const REASON_TAIL_LINES = 10;
const REASON_OUTPUT_CHARS = 2000;

/** The end of a log stream as text, at most REASON_OUTPUT_CHARS. */
export async function readTail(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  const text = Buffer.concat(parts).toString('utf8');
  return text.length > REASON_OUTPUT_CHARS ? `…${text.slice(-REASON_OUTPUT_CHARS)}` : text;
}
