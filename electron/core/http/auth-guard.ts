import type { FastifyInstance } from 'fastify';
import type { Scope, Token } from '../../../shared/schemas/system';
import { sendProblem } from './problems';
import { ApiError } from '../../../shared/errors';
import { hasScope, type AuthPort } from '../auth/port';
import type { RateLimiter } from './rate-limiter';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a token needs for this route. Every /v1 route names one. */
    scope?: Scope;
    /** The route acts on the whole machine: project-restricted tokens are refused. */
    machineWide?: boolean;
  }
  interface FastifyRequest {
    token: Token | null;
  }
}

/**
 * Whether a request needs a token: every /v1 path, judged by the path the router sees (an
 * absolute-form target "http://127.0.0.1:7420/v1/..." is routed by its path too), and every
 * route that names a scope.
 */
export function needsToken(url: string, scope: Scope | undefined): boolean {
  if (scope !== undefined) return true;
  let path = url.split('?')[0]!;
  if (!path.startsWith('/')) {
    try {
      path = new URL(url).pathname;
    } catch {
      return true;
    }
  }
  return path === '/v1' || path.startsWith('/v1/');
}

/** Bearer token on every /v1 route; a token in the query string is never read. */
export function installAuthGuard(app: FastifyInstance, auth: AuthPort, limiter: RateLimiter): void {
  app.decorateRequest('token', null);
  app.addHook('onRequest', async (request, reply) => {
    if (!needsToken(request.url, request.routeOptions.config.scope)) return undefined;
    try {
      const token = auth.authenticate(request.headers.authorization);
      request.token = token;
      const wait = limiter.take(token.id);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        throw new ApiError('rate_limited', `this token made too many requests; retry in ${wait} s`);
      }
      const config = request.routeOptions.config;
      if (config.scope) {
        const project = (request.params as { project?: string } | undefined)?.project;
        auth.authorize(token, config.scope, project, config.machineWide);
      }
    } catch (err) {
      if (err instanceof ApiError) {
        if (err.status === 401) reply.header('www-authenticate', 'Bearer realm="boxdesk"');
        return sendProblem(reply, err.toProblem());
      }
      throw err;
    }
    return undefined;
  });
}

export function requireToken(token: Token | null): Token {
  if (!token) throw new ApiError('unauthorized', 'a token is required');
  return token;
}

/**
 * For a request whose body asks for more than its route's scope (a service's `command` runs
 * code in a box, which is what `exec` guards): 403 unless the token also has `scope`.
 */
export function requireScopeFor(token: Token | null, scope: Scope, what: string): void {
  const t = requireToken(token);
  if (!hasScope(t, scope))
    throw new ApiError(
      'forbidden',
      `${what} needs the "${scope}" scope, which this token lacks (it has: ${t.scopes.join(', ')}); use a token with "${scope}", or leave it out`,
    );
}
