import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
      return new Set([`http://localhost:${p}`, `http://127.0.0.1:${p}`, `http://[::1]:${p}`, APP_ORIGIN, ...extraOrigins]);
    },
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Checks Host (stops DNS rebinding) and Origin; returns the problem to answer, or null to go on. */
export function checkRequest(policy: HostPolicy, method: string, headers: FastifyRequest['headers'], upgrade: boolean): ApiError | null {
  const host = (headers.host ?? '').toLowerCase();
  if (!policy.hosts().has(host)) {
    return new ApiError('forbidden', `Host "${host}" is not allowed: Boxdesk answers only to localhost, 127.0.0.1 and [::1] on its port`);
  }
  const origin = headers.origin;
  if (origin !== undefined && (upgrade || !SAFE_METHODS.has(method)) && !policy.origins().has(origin)) {
    return new ApiError('forbidden', `Origin "${origin}" may not call this API; add it with --allowed-origin if you trust it`);
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
    const refusal = checkRequest(policy, request.method, request.headers, false);
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
