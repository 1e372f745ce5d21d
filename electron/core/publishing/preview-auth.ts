import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../../shared/errors';
import type { Token } from '../../../shared/schemas/system';
import type { AuthPort } from '../auth/port';
import { takeOurCredentials, type OurCredentials } from './our-credentials';
import { hostnameOf } from './published-hosts';
import type { ProxyRoute } from './service';
import { splitCookies, type SessionCookies } from './session-cookie';
import { takeSignInCode, type SignInLinks } from './sign-in-links';

export type PreviewAccess =
  | { kind: 'allow' }
  /** Our `?token=` or `?boxdesk_code=` was on the URL: redirect to `location` (without it), setting `cookie` when there is one. */
  | { kind: 'redirect'; location: string; cookie?: string }
  | { kind: 'deny'; status: 401 | 403; message: string };

/**
 * Who may see a published box, and what of Boxdesk's never reaches it. Whatever the mode, our
 * session cookie, a bearer header or `bearer.` subprotocol holding one of our tokens, and a
 * `?token=` holding one (a page load is redirected to the URL without it, so the page's own
 * scripts never read it) are taken off; an app's own credentials pass untouched.
 * `public`: anyone on this machine. `token`: a token that can read the box's project, as a
 * bearer header, as `?token=` once, or a one-time `?boxdesk_code=` (SignInLinks: what the window
 * and `box open` use, so no token is ever in a URL); both are answered with a session cookie and
 * a redirect; or as that cookie.
 */
export class PreviewAuth {
  constructor(
    private readonly auth: AuthPort,
    private readonly sessions: SessionCookies,
    private readonly links: SignInLinks,
  ) {}

  check(req: IncomingMessage, row: ProxyRoute, upgrade: boolean): PreviewAccess {
    const host = hostnameOf(req.headers.host ?? '');
    const { session, rest } = splitCookies(req.headers.cookie);
    if (rest === null) delete req.headers.cookie;
    else req.headers.cookie = rest;
    const { code, url: withoutCode } = takeSignInCode(req.url ?? '/');
    req.url = withoutCode;
    // One indexed hash lookup per secret sent, only when a request carries one.
    const ours = takeOurCredentials(req, (secret) => this.ourToken(secret));
    const redirect = (ours.query !== undefined || code !== undefined) && !upgrade;
    // A browser's WebSocket cannot follow a redirect: the upgrade goes on, without our token in its URL.
    if (ours.query !== undefined && upgrade) req.url = ours.url;
    if (row.url_auth !== 'token') return redirect ? { kind: 'redirect', location: ours.url } : { kind: 'allow' };
    try {
      if (code !== undefined && redirect) return this.redeem(code, { ours, session, host, row }, ours.url);
      return this.admit(ours, session, host, row, redirect);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return deny(err.status, err.message);
      throw err;
    }
  }

  /** `auth: token`: the first of our credentials decides (`?token=`, then the bearer header, then the cookie; a `?boxdesk_code=` goes first, in `redeem`). */
  private admit(
    ours: OurCredentials,
    session: string | null,
    host: string,
    row: ProxyRoute,
    redirect: boolean,
  ): PreviewAccess {
    const token = ours.query ?? ours.bearer;
    if (token) {
      this.auth.authorize(token, 'read', row.project);
      if (!redirect || !ours.query) return { kind: 'allow' };
      return {
        kind: 'redirect',
        location: ours.url,
        cookie: this.sessions.setCookieHeader(this.sessions.issue(ours.query.id, host)),
      };
    }
    if (session !== null) {
      const tokenId = this.sessions.verify(session, host);
      const sessionToken = tokenId === null ? undefined : this.auth.tokenById(tokenId);
      if (!sessionToken)
        return deny(
          401,
          'your preview session is not valid any more (expired, or its token was deleted); open the URL with ?token=<token> again',
        );
      this.auth.authorize(sessionToken, 'read', row.project);
      return { kind: 'allow' };
    }
    if (ours.foreignQuery || ours.foreignBearer) return deny(401, 'the token is not valid (it may have been deleted)');
    return deny(
      401,
      `"${row.name}" is published with auth "token": open it from the Boxdesk window or with "box open ${row.name} --project ${row.project}" (each signs this browser in with a one-time link), or once as ${row.url ?? 'its URL'}/?token=<a token that can read project "${row.project}">, or send "Authorization: Bearer <token>"`,
    );
  }

  /**
   * A one-time code from the window or `box open`: spent now, and made into the session cookie. A spent
   * one (a link opened again from the history) still leads a browser signed in already to the page.
   */
  private redeem(
    code: string,
    request: { ours: OurCredentials; session: string | null; host: string; row: ProxyRoute },
    location: string,
  ): PreviewAccess {
    const { ours, session, host, row } = request;
    const redeemed = this.links.redeem(code, row, host);
    if ('refused' in redeemed) {
      if (session !== null && this.admit(ours, session, host, row, false).kind === 'allow')
        return { kind: 'redirect', location };
      return deny(401, `${redeemed.refused}; open it again from the Boxdesk window, or with: box open ${row.name}`);
    }
    const token = this.auth.tokenById(redeemed.tokenId);
    if (!token) return deny(401, 'the token that made this sign-in link was deleted; sign in again');
    this.auth.authorize(token, 'read', row.project);
    return { kind: 'redirect', location, cookie: this.sessions.setCookieHeader(this.sessions.issue(token.id, host)) };
  }

  /** The token a secret is, by the store (and its last use noted), or undefined when it is not ours. */
  private ourToken(secret: string): Token | undefined {
    try {
      return this.auth.authenticateSecret(secret);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return undefined;
      throw err;
    }
  }
}

function deny(status: 401 | 403, message: string): PreviewAccess {
  return { kind: 'deny', status, message };
}
