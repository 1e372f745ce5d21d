import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';

/**
 * Answers 200 with a long-lived body: headers go out at once (a follower
 * waiting for its first line must not time out), then the stream is piped.
 * Headers already set on the reply (CORS, nosniff) are kept.
 */
export function sendLiveStream(
  reply: FastifyReply,
  contentType: string,
  stream: Readable | null,
  extraHeaders: Record<string, string> = {},
): NodeJS.WritableStream {
  reply.hijack();
  const res = reply.raw;
  const inherited = Object.fromEntries(Object.entries(reply.getHeaders()).map(([k, v]) => [k, String(v)]));
  res.writeHead(200, {
    ...inherited,
    'content-type': contentType,
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    ...extraHeaders,
  });
  res.flushHeaders();
  if (stream) {
    stream.pipe(res);
    stream.on('error', () => res.destroy());
    res.on('close', () => stream.destroy());
  }
  return res;
}
