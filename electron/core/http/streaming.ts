import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { ServerResponse } from 'node:http';

/** Takes the answer from Fastify and writes its 200 head: `headers` over those already set on the reply (CORS, nosniff). */
function writeHead(reply: FastifyReply, headers: Record<string, string>): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  const inherited = Object.fromEntries(Object.entries(reply.getHeaders()).map(([k, v]) => [k, String(v)]));
  res.writeHead(200, { ...inherited, ...headers });
  return res;
}

/** Pipes `stream` into the answer; either one failing or closing ends the other. */
function pipeInto(stream: Readable, res: ServerResponse): void {
  stream.pipe(res);
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
}

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
  const res = writeHead(reply, {
    'content-type': contentType,
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    ...extraHeaders,
  });
  res.flushHeaders();
  if (stream) pipeInto(stream, res);
  return res;
}

/**
 * Answers 200 with a whole file's bytes, streamed, with `headers` (its type and length up front, so
 * clients can show progress; its disposition, digests). Headers already set on the reply are kept.
 */
export function sendDownload(reply: FastifyReply, stream: Readable, headers: Record<string, string>): void {
  const res = writeHead(reply, headers);
  if (!sendsItself(stream)) return pipeInto(stream, res);
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.sendInto(res);
}

/** A body that writes itself into the answer from the buffers it reads into (a box agent's file: engine/agent/agent-download.ts). */
interface SendsItself {
  sendInto(sink: ServerResponse): void;
}

const sendsItself = (stream: Readable): stream is Readable & SendsItself =>
  typeof (stream as Partial<SendsItself>).sendInto === 'function';
