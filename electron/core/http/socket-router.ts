import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError } from '../../../shared/errors';
import { BEARER_PROTOCOL_PREFIX, WS_PROTOCOL } from '../../../shared/protocol';
import { DNS_LABEL_PATTERN } from '../../../shared/schemas/common';
import type { Scope, Token } from '../../../shared/schemas/system';
import type { AuthPort } from '../auth/port';
import type { RateLimiter } from './rate-limiter';
import { checkRequest, type HostPolicy } from './hardening';
import { STORAGE_RETRY_AFTER_S, toApiError } from './problems';
import { writeRawProblem } from './raw-problem';

/** What a socket route learns of an upgrade that passed every check. */
export interface SocketRequest {
  /** Path parameters by name; each is a DNS label. */
  params: Record<string, string>;
  query: URLSearchParams;
  token: Token;
}

export interface SocketRoute {
  /** A path with `:name` parameters, each matching a DNS label, e.g. `/v1/projects/:project/boxes/:name/console`. */
  path: string;
  scope: Scope;
  /**
   * Prepares the session before the upgrade is answered, so a refusal is still a plain HTTP
   * problem; returns what to do with the socket once it is open.
   */
  accept(request: SocketRequest): Promise<(ws: WebSocket) => void>;
}

export interface SocketRouterDeps {
  policy: HostPolicy;
  auth: AuthPort;
  limiter: RateLimiter;
}

const LABEL = DNS_LABEL_PATTERN.slice(1, -1).replace(/\((?!\?)/g, '(?:');

function compile(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-z]+)/g, (_m, name: string) => {
    names.push(name);
    return `(${LABEL})`;
  });
  return { regex: new RegExp(`^${source}$`), names };
}

/**
 * The one WebSocket upgrade path. Every socket route gets the same checks, in this order and
 * once: Host and Origin, the token (subprotocol `bearer.<token>` or Authorization; never the
 * query string), the route's scope and the token's project, the rate limit. Routes register;
 * they never see the raw upgrade.
 */
export class SocketRouter {
  private readonly routes: { route: SocketRoute; regex: RegExp; names: string[] }[] = [];
  // The token rides in a subprotocol; select boxdesk.v1 so the answer does not echo it back.
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: 4 * 1024 * 1024,
    perMessageDeflate: false,
    handleProtocols: (protocols) =>
      protocols.has(WS_PROTOCOL)
        ? WS_PROTOCOL
        : ([...protocols].find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX)) ?? false),
  });

  constructor(
    private readonly app: FastifyInstance,
    private readonly deps: SocketRouterDeps,
  ) {
    app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(req, socket, head).catch((err: unknown) => {
        const { error, bug } = toApiError(err, 'upgrade');
        if (bug) app.log.error({ err }, 'websocket upgrade failed');
        const retry =
          error.code === 'storage_busy' ? STORAGE_RETRY_AFTER_S : (err as { retryAfter?: number }).retryAfter;
        writeRawProblem(socket, error, retry ? { 'Retry-After': String(retry) } : {});
      });
    });
    // Upgraded sockets would hold the server open: close them first; their sessions end after.
    app.addHook('preClose', async () => {
      for (const ws of this.wss.clients) {
        ws.close(1001, 'the core is shutting down');
        setTimeout(() => ws.terminate(), 1000).unref();
      }
    });
  }

  register(route: SocketRoute): void {
    this.routes.push({ route, ...compile(route.path) });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const refusal = checkRequest(this.deps.policy, req, true);
    if (refusal) throw refusal;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const found = this.match(url.pathname);
    if (!found) throw new ApiError('not_found', `no WebSocket endpoint at ${url.pathname}`);
    const token = this.authenticate(req);
    this.deps.auth.authorize(token, found.route.scope, found.params.project);
    const wait = this.deps.limiter.take(token.id);
    if (wait > 0)
      throw Object.assign(new ApiError('rate_limited', `this token made too many requests; retry in ${wait} s`), {
        retryAfter: wait,
      });
    const bind = await found.route.accept({ params: found.params, query: url.searchParams, token });
    this.wss.handleUpgrade(req, socket, head, bind);
  }

  private match(pathname: string): { route: SocketRoute; params: Record<string, string> } | null {
    for (const { route, regex, names } of this.routes) {
      const m = regex.exec(pathname);
      if (m) return { route, params: Object.fromEntries(names.map((n, i) => [n, m[i + 1]!])) };
    }
    return null;
  }

  private authenticate(req: IncomingMessage): Token {
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bearer = offered.find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
    return bearer
      ? this.deps.auth.authenticateSecret(bearer.slice(BEARER_PROTOCOL_PREFIX.length))
      : this.deps.auth.authenticate(req.headers.authorization);
  }
}
