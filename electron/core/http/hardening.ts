import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../../shared/errors';
import { sendProblem } from './problems';

/** The origin the Electron window's renderer runs on. */
export const APP_ORIGIN = 'app://boxdesk';

export interface HostPolicy {
  /** Host header values accepted, e.g. "127.0.0.1:7420". */
  hosts(): Set<string>;
  /** Browser origins allowed to change state and to open sockets. */
  origins(): Set<string>;
}

export function loopbackPolicy(port: () => number, extraOrigins: string[]): HostPolicy {
  return {
    hosts: () => {
      const p = port();
      return new Set([`localhost:${p}`, `127.0.0.1:${p}`, `[::1]:${p}`]);
    },
    origins: () => {
      const p = port();
      return new Set([
        `http://localhost:${p}`,
        `http://127.0.0.1:${p}`,
        `http://[::1]:${p}`,
        APP_ORIGIN,
        ...extraOrigins,
      ]);
    },
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What the checks read of a request: Fastify's request.raw and an upgrade's IncomingMessage both fit. */
export interface IncomingLike {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
}

function hostHeaderCount(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host') n++;
  return n;
}

/**
 * Checks Host (stops DNS rebinding), an absolute request URI's authority, and Origin;
 * returns the problem to answer, or null to go on. Runs before anything else looks at the request.
 */
export function checkRequest(policy: HostPolicy, req: IncomingLike, upgrade: boolean): ApiError | null {
  // Node keeps only the first of repeated Host headers; a proxy in front might use another one.
  if (hostHeaderCount(req.rawHeaders) > 1)
    return new ApiError('invalid_body', 'the request has more than one Host header; send exactly one');
  const host = (req.headers.host ?? '').toLowerCase();
  if (!policy.hosts().has(host)) {
    return new ApiError(
      'forbidden',
      `Host "${host}" is not allowed: Boxdesk answers only to localhost, 127.0.0.1 and [::1] on its port`,
    );
  }
  // An absolute-form target ("GET http://other/ HTTP/1.1") names the host that counts (RFC 9112 3.2.2).
  const url = req.url ?? '/';
  if (!url.startsWith('/') && url !== '*') {
    let authority: string;
    try {
      authority = new URL(url).host.toLowerCase();
    } catch {
      return new ApiError('invalid_body', 'the request target is neither a path nor an absolute URL');
    }
    if (!policy.hosts().has(authority)) {
      return new ApiError(
        'forbidden',
        `the request URI names host "${authority}": Boxdesk answers only to localhost, 127.0.0.1 and [::1] on its port`,
      );
    }
  }
  const origin = req.headers.origin;
  if (origin !== undefined && (upgrade || !SAFE_METHODS.has(req.method ?? 'GET')) && !policy.origins().has(origin)) {
    return new ApiError(
      'forbidden',
      `Origin "${origin}" may not call this API; add it with --allowed-origin if you trust it`,
    );
  }
  return null;
}

function applyCors(policy: HostPolicy, request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  reply.header('vary', 'Origin');
  if (origin && policy.origins().has(origin)) {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', 'Retry-After, Location');
  }
}

export function installHardening(app: FastifyInstance, policy: HostPolicy): void {
  app.addHook('onRequest', async (request, reply) => {
    const refusal = checkRequest(policy, request.raw, false);
    if (refusal) return sendProblem(reply, refusal.toProblem());
    applyCors(policy, request, reply);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, PUT, DELETE')
        .header('access-control-allow-headers', 'Authorization, Content-Type, Accept, Last-Event-ID')
        .header('access-control-max-age', '600')
        .send();
    }
    reply.header('x-content-type-options', 'nosniff');
    return undefined;
  });
}
