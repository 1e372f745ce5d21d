import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getMeta, setMeta, type Db } from '../db/database';

export const COOKIE_NAME = 'boxdesk_preview';
/** A preview session lasts at most this long; then `?token=` again. */
const MAX_AGE_S = 7 * 24 * 3600;

/** The HMAC key, kept in the store so sessions survive a restart of the core. */
export function sessionKey(db: Db): Buffer {
  let key = getMeta(db, 'preview_session_key');
  if (!key) {
    key = randomBytes(32).toString('base64url');
    setMeta(db, 'preview_session_key', key);
  }
  return Buffer.from(key, 'base64url');
}

/**
 * A preview session: `v1.<token id>.<issued at>.<HMAC(key, token id, issued at, host)>`.
 * It names the token, never holds it: deleting the token ends every session
 * made from it, and a session made for one host is worthless on another.
 */
export class SessionCookies {
  constructor(private readonly key: Buffer) {}

  private mac(tokenId: string, issuedAt: number, host: string): string {
    return createHmac('sha256', this.key).update(`v1|${tokenId}|${issuedAt}|${host}`).digest('base64url');
  }

  issue(tokenId: string, host: string): string {
    const issuedAt = Math.floor(Date.now() / 1000);
    return `v1.${tokenId}.${issuedAt}.${this.mac(tokenId, issuedAt, host)}`;
  }

  /** The token id a valid session for `host` names, or null. */
  verify(value: string, host: string): string | null {
    const [version, tokenId, issued, mac] = value.split('.');
    if (version !== 'v1' || !tokenId || !issued || !mac) return null;
    const issuedAt = Number(issued);
    if (!Number.isInteger(issuedAt) || Date.now() / 1000 - issuedAt > MAX_AGE_S) return null;
    const expected = Buffer.from(this.mac(tokenId, issuedAt, host));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected) ? tokenId : null;
  }

  setCookieHeader(value: string): string {
    return `${COOKIE_NAME}=${value}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${MAX_AGE_S}`;
  }
}

/** Our session from a Cookie header, and the header without it (null when nothing else is left). */
export function splitCookies(header: string | undefined): { session: string | null; rest: string | null } {
  if (!header) return { session: null, rest: null };
  let session: string | null = null;
  const rest = header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => {
      if (!c) return false;
      const eq = c.indexOf('=');
      if ((eq < 0 ? c : c.slice(0, eq)).trim() !== COOKIE_NAME) return true;
      session = c.slice(eq + 1).trim();
      return false;
    });
  return { session, rest: rest.length ? rest.join('; ') : null };
}
