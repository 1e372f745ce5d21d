import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable, Transform, finished } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import { promptCollector } from './prompt-gc';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * How the route takes its body: `json` (the default; parsed, at most the JSON limit) or
     * `stream` (`application/octet-stream`, handed over unbuffered as a Readable, at most the
     * upload limit). A body of the other kind is a 415.
     */
    body?: 'json' | 'stream';
  }
}

export const JSON_BODY_LIMIT = 1024 * 1024;
export const OCTET_STREAM = 'application/octet-stream';

/** The body schema of a streamed route: documents the upload in OpenAPI; the stream itself is not validated. */
export function streamBody(description: string): {
  content: Record<string, { schema: { type: 'string'; format: 'binary'; description: string } }>;
} {
  return { content: { [OCTET_STREAM]: { schema: { type: 'string', format: 'binary', description } } } };
}

/** True for the schema `streamBody` puts on a route: its validator lets the stream through. */
export function isStreamBodySchema(schema: unknown): boolean {
  return (schema as { format?: string } | null)?.format === 'binary';
}

function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MiB`;
  return `${n} bytes`;
}

/**
 * Passes bytes through until `limit`, then fails with payload_too_large: the consumer must discard
 * what it wrote. Every streamed body passes it, and it prompts V8's collector as the bytes go by
 * (prompt-gc.ts). The request itself is never destroyed by its reader: once the counter ends
 * early (over the limit, or destroyed by its consumer), the rest of the body is read and dropped
 * (`drain`).
 */
export function limitStream(source: Readable, limit: number): Readable {
  let seen = 0;
  const collect = promptCollector();
  const counter = new Transform({
    // Room for a few socket reads: the default 16 KiB makes a streamed upload wait on every chunk.
    highWaterMark: 1024 * 1024,
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      collect(chunk.length);
      if (seen > limit)
        return done(
          new ApiError(
            'payload_too_large',
            `the upload is larger than the ${formatBytes(limit)} limit (--upload-limit)`,
          ),
        );
      done(null, chunk);
    },
  });
  // Its errors are its consumer's; one that never read it must not crash the core.
  counter.on('error', () => undefined);
  // The client gone midway (an error, or a close before the body's end) fails the counter.
  finished(source, (err) => {
    if (err) counter.destroy(err);
  });
  counter.once('close', () => {
    if (!source.readableEnded) drain(source);
  });
  source.pipe(counter);
  return counter;
}

/**
 * Reads the rest of a request's body and drops it, as Node drops a body nobody read: the answer
 * reaches a client still sending, and the connection's next request is read. Destroyed instead,
 * the request would leave its remaining bytes unread on a connection kept for the answer.
 */
function drain(body: Readable): void {
  body.unpipe();
  body.removeAllListeners('data');
  body.resume();
}

/** The body of a `body: 'stream'` route. */
export function uploadStream(request: FastifyRequest): Readable {
  const body = request.body as unknown;
  if (body instanceof Readable) return body;
  throw new ApiError('invalid_body', `send the bytes as the request body with Content-Type: ${OCTET_STREAM}`);
}

/** Whether a request carries a body, as Fastify judges it: a Transfer-Encoding, or a Content-Length other than 0. */
function carriesBody(headers: FastifyRequest['headers']): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The one rule for routes that take no body (no body schema: GET, DELETE, POST .../stop…): any
 * body is refused with 415 before it is read, whatever its type — a JSON object with unknown
 * fields included, which would otherwise be parsed and ignored. Runs after the token check.
 */
function refuseUnexpectedBodies(app: FastifyInstance): void {
  app.addHook('preParsing', async (request) => {
    if (request.is404 || request.routeOptions.schema?.body || !carriesBody(request.headers)) return;
    const type = request.headers['content-type'];
    const got = type ? `Content-Type ${type}` : 'no Content-Type';
    throw new ApiError(
      'unsupported_media_type',
      `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} takes no request body (got one with ${got}); send the request without a body`,
    );
  });
}

/**
 * An answer given before its request's body was read to the end, that body taken by a route and
 * then left (refused midway, paused by its reader): an answer means the route is done with the
 * body, so the rest is drained. Node parses a connection's next request only after the body:
 * left as it was, a client's next request on the connection sat unread until the keep-alive
 * timeout reset it. A body already destroyed cannot be read on: that connection ends after the
 * answer (Connection: close). A body never read at all (refused before parsing) Node drains itself.
 */
function finishLeftBodies(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (!raw.complete && raw.readableFlowing !== null) {
      if (raw.destroyed) void reply.header('connection', 'close');
      else drain(raw);
    }
    done(null, payload);
  });
}

/**
 * Body parsers chosen per route (config.body): JSON up to `jsonLimit` for most routes; a
 * streamed application/octet-stream up to `uploadLimit` for uploads, checked against
 * Content-Length at once and counted as it flows. Nothing else is accepted (415).
 */
export function installBodyParsers(app: FastifyInstance, limits: { jsonLimit: number; uploadLimit: number }): void {
  refuseUnexpectedBodies(app);
  finishLeftBodies(app);
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: limits.jsonLimit },
    (request, body, done) => {
      if (request.routeOptions.config.body === 'stream')
        return done(new ApiError('unsupported_media_type', `send the body as ${OCTET_STREAM}`), undefined);
      // An empty body is no body (POST .../stop with a Content-Type but nothing after it).
      if (body === '') return done(null, undefined);
      try {
        done(null, JSON.parse(body as string));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
  const streamParser = (
    request: FastifyRequest,
    payload: Readable,
    done: (err: Error | null, body: Readable | undefined) => void,
  ) => {
    if (request.routeOptions.config.body !== 'stream')
      return done(new ApiError('unsupported_media_type', 'send the body as application/json'), undefined);
    const declared = Number(request.headers['content-length'] ?? NaN);
    if (declared > limits.uploadLimit) {
      return done(
        new ApiError(
          'payload_too_large',
          `the upload (${declared} bytes) is larger than the ${formatBytes(limits.uploadLimit)} limit (--upload-limit)`,
        ),
        undefined,
      );
    }
    done(null, limitStream(payload, limits.uploadLimit));
  };
  app.addContentTypeParser(OCTET_STREAM, streamParser);
  // A tar is a stream like any other (a base build's context).
  app.addContentTypeParser('application/x-tar', streamParser);
}
