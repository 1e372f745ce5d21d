import type { FastifyServerOptions } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { BEARER_PROTOCOL_PREFIX } from '../../../shared/protocol';

export const REDACTED = '[redacted]';

/**
 * Query parameters that may carry a secret: `?token=` is how a browser first opens a published
 * box, and a build's `build_arg=NAME=VALUE` often passes a key (its name stays, its value goes).
 */
const SECRET_QUERY = /([?&](?:token|access_token)=|[?&]build_arg=[^=&#]*(?:=|%3D))[^&#]*/gi;

/** The URL with every token in its query string replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, `$1${REDACTED}`);
}

/** Headers safe to log: Authorization and cookies hidden, bearer subprotocols replaced. */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = { ...headers };
  for (const name of ['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])
    if (out[name] !== undefined) out[name] = REDACTED;
  const protocols = headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    out['sec-websocket-protocol'] = protocols
      .split(',')
      .map((p) => (p.trim().startsWith(BEARER_PROTOCOL_PREFIX) ? `${BEARER_PROTOCOL_PREFIX}${REDACTED}` : p.trim()))
      .join(', ');
  }
  return out;
}

interface LoggedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  socket?: { remoteAddress?: string; remotePort?: number };
}

/**
 * Logger options for the core: no secret reaches the log through a request's URL or headers.
 * `base` is the caller's choice (false: no log; an object: pino options, e.g. a test's stream);
 * `stream`, without it, where the lines go (--log-format pretty).
 */
export function coreLoggerOptions(
  level: string,
  base?: boolean | object,
  stream?: NodeJS.WritableStream,
): FastifyServerOptions['logger'] {
  if (base === false) return false;
  const options = typeof base === 'object' ? base : { level, ...(stream ? { stream } : {}) };
  return {
    ...options,
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactUrl(req.url),
        host: req.headers.host,
        remoteAddress: req.socket?.remoteAddress,
        remotePort: req.socket?.remotePort,
      }),
      headers: (headers: IncomingHttpHeaders) => redactHeaders(headers),
    },
  } as FastifyServerOptions['logger'];
}
