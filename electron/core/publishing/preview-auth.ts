import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../../shared/errors';
import type { Token } from '../../../shared/schemas/system';
import type { AuthService } from '../auth/auth-service';
import type { TokenStore } from '../auth/token-store';
import { hostnameOf } from './published-hosts';
import type { ProxyRoute } from './service';
import { splitCookies, type SessionCookies } from './session-cookie';

export type PreviewAccess =
  | { kind: 'allow' }
  /** `?token=` was valid: set this cookie and redirect to `location`. */
  | { kind: 'redirect'; location: string; cookie: string }
  | { kind: 'deny'; status: 401 | 403; message: string };

/**
 * Who may see a published box. `public`: anyone on this machine, and the
 * request goes to the box as it came (its Authorization belongs to the app).
 * `token`: a token that can read the box's project, as a bearer header, as
 * `?token=` once (answered with a session cookie and a redirect), or as that
 * cookie. Either way our cookie, and with `token` the Authorization header,
 * are removed from the request before it is forwarded.
 */
export class PreviewAuth {
  constructor(
    private readonly auth: AuthService,
    private readonly tokens: TokenStore,
    private readonly sessions: SessionCookies,
  ) {}

  check(req: IncomingMessage, row: ProxyRoute, upgrade: boolean): PreviewAccess {
    const host = hostnameOf(req.headers.host ?? '');
    const { session, rest } = splitCookies(req.headers.cookie);
    if (rest === null) delete req.headers.cookie;
    else req.headers.cookie = rest;
    if (row.url_auth !== 'token') return { kind: 'allow' };

    const authorization = req.headers.authorization;
    delete req.headers.authorization;
    const url = new URL(req.url ?? '/', 'http://preview');
    const query = url.searchParams.get('token');
    try {
      if (query !== null) {
        const token = this.readable(this.auth.authenticateSecret(query), row);
        url.searchParams.delete('token');
        // A browser's WebSocket cannot follow a redirect: the upgrade goes on, without the token in its URL.
        if (upgrade) {
          req.url = url.pathname + url.search;
          return { kind: 'allow' };
        }
        return {
          kind: 'redirect',
          location: url.pathname + url.search,
          cookie: this.sessions.setCookieHeader(this.sessions.issue(token.id, host)),
        };
      }
      if (authorization !== undefined && /^Bearer\s/i.test(authorization)) {
        this.readable(this.auth.authenticate(authorization), row);
        return { kind: 'allow' };
      }
      if (session !== null) {
        const tokenId = this.sessions.verify(session, host);
        const token = tokenId === null ? undefined : this.tokens.get(tokenId);
        if (!token)
          return deny(
            401,
            'your preview session is not valid any more (expired, or its token was deleted); open the URL with ?token=<token> again',
          );
        this.readable(token, row);
        return { kind: 'allow' };
      }
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return deny(err.status, err.message);
      throw err;
    }
    return deny(
      401,
      `"${row.name}" is published with auth "token": open it once as ${row.url ?? 'its URL'}/?token=<a token that can read project "${row.project}">, or send "Authorization: Bearer <token>"`,
    );
  }

  private readable(token: Token, row: ProxyRoute): Token {
    this.auth.authorize(token, 'read', row.project);
    return token;
  }
}

function deny(status: 401 | 403, message: string): PreviewAccess {
  return { kind: 'deny', status, message };
}
