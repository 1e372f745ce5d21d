import type { IncomingMessage } from 'node:http';
import type { Token } from '../../../shared/schemas/system';

/** Finds the Boxdesk token a secret is (by its hash in the token store), or undefined: then it is the app's. */
export type TokenLookup = (secret: string) => Token | undefined;

/**
 * Boxdesk's own credentials on a request to the preview proxy, and the request without them.
 * Only secrets the token store knows are ours: an app's own `Authorization` header, `token`
 * query parameter or `bearer.*` subprotocol reaches the box untouched.
 */
export interface OurCredentials {
  /** The token in `Authorization: Bearer …`, when it is ours. */
  bearer: Token | undefined;
  /** Whether the Authorization header was a bearer secret the store does not know. */
  foreignBearer: boolean;
  /** The token in `?token=`, when it is ours. */
  query: Token | undefined;
  /** Whether `?token=` was there with a value the store does not know. */
  foreignQuery: boolean;
  /** The request URL without our `token` parameters (byte for byte the same otherwise). */
  url: string;
}

/**
 * Takes our tokens off the request (its headers are changed in place; the URL without ours is
 * returned, for the caller to redirect to or forward): the bearer header and `bearer.<token>`
 * WebSocket subprotocols when the secret is ours, and says what it found.
 */
export function takeOurCredentials(req: IncomingMessage, lookup: TokenLookup): OurCredentials {
  const secret = bearerSecret(req.headers.authorization);
  const bearer = secret === null ? undefined : lookup(secret);
  if (bearer) delete req.headers.authorization;
  stripOurSubprotocols(req, lookup);
  const { url, ours, foreign } = withoutOurQueryTokens(req.url ?? '/', lookup);
  return { bearer, foreignBearer: secret !== null && !bearer, query: ours, foreignQuery: foreign, url };
}

function bearerSecret(header: string | undefined): string | null {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** The API takes a token as the subprotocol `bearer.<token>`; one sent here by mistake goes no further. */
function stripOurSubprotocols(req: IncomingMessage, lookup: TokenLookup): void {
  const header = req.headers['sec-websocket-protocol'];
  if (header === undefined) return;
  const offered = header.split(',').map((p) => p.trim());
  const kept = offered.filter((p) => !(p.startsWith('bearer.') && lookup(p.slice('bearer.'.length))));
  if (kept.length === offered.length) return;
  if (kept.length) req.headers['sec-websocket-protocol'] = kept.join(', ');
  else delete req.headers['sec-websocket-protocol'];
}

/**
 * The URL without the `token` parameters whose value is ours. The other parameters keep their
 * exact bytes (no re-encoding), so an app's own query, `token` included, reads as it was sent.
 */
function withoutOurQueryTokens(
  rawUrl: string,
  lookup: TokenLookup,
): { url: string; ours: Token | undefined; foreign: boolean } {
  const q = rawUrl.indexOf('?');
  if (q < 0) return { url: rawUrl, ours: undefined, foreign: false };
  let ours: Token | undefined;
  let foreign = false;
  const kept = rawUrl
    .slice(q + 1)
    .split('&')
    .filter((segment) => {
      const [pair] = new URLSearchParams(segment);
      if (!pair || pair[0] !== 'token') return true;
      const token = lookup(pair[1]);
      if (!token) foreign = true;
      ours ??= token;
      return !token;
    });
  const path = rawUrl.slice(0, q);
  return { url: kept.length ? `${path}?${kept.join('&')}` : path, ours, foreign };
}
