import { randomBytes } from 'node:crypto';
import { hostnameOf } from './published-hosts';

/** The query parameter a one-time sign-in code travels in (taken off before the box sees the request). */
export const SIGN_IN_PARAM = 'boxdesk_code';
/** How long a code may wait to be used. */
export const SIGN_IN_TTL_MS = 60_000;
/** Codes minted and not used yet, at most (the oldest go first): minting cannot grow memory without bound. */
const MAX_PENDING = 1000;

/** What a code opens: one target (a published box or a service) at one host, for the token that asked. */
export interface SignInTarget {
  project: string;
  name: string;
  /** The URL the code was minted for; the code is good at its host only. */
  url: string;
}

interface Pending {
  tokenId: string;
  project: string;
  name: string;
  host: string;
  expiresAt: number;
}

export type Redeemed = { tokenId: string } | { refused: string };

/**
 * One-time sign-in codes for preview URLs, kept in memory (a restart of the core voids them,
 * which costs a click). A code is random, names the token that minted it (so the session the
 * proxy makes from it ends when that token is deleted), opens one target at one host, lasts
 * SIGN_IN_TTL_MS, and is gone at its first use, good or not.
 */
export class SignInLinks {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** A code for `target`, minted by the token `tokenId`, and when it stops working. */
  mint(tokenId: string, target: SignInTarget): { code: string; expiresAt: Date } {
    this.dropExpired();
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const code = randomBytes(24).toString('base64url');
    const expiresAt = this.clock() + SIGN_IN_TTL_MS;
    const host = hostnameOf(new URL(target.url).host);
    this.pending.set(code, { tokenId, project: target.project, name: target.name, host, expiresAt });
    return { code, expiresAt: new Date(expiresAt) };
  }

  /** The token a code stands for, when it is used in time at the host of the target it was made for. */
  redeem(code: string, target: { project: string; name: string }, host: string): Redeemed {
    const link = this.pending.get(code);
    this.pending.delete(code);
    if (!link || link.expiresAt <= this.clock())
      return { refused: 'this sign-in link was used already or has expired (a link works once, within a minute)' };
    if (link.project !== target.project || link.name !== target.name || link.host !== hostnameOf(host))
      return { refused: 'this sign-in link was made for another URL' };
    return { tokenId: link.tokenId };
  }

  private dropExpired(): void {
    const now = this.clock();
    for (const [code, link] of this.pending) if (link.expiresAt <= now) this.pending.delete(code);
  }
}

/**
 * Takes our sign-in code off a request URL: the code (the first, when there are several) and the URL
 * without any `boxdesk_code` parameter, the other parameters byte for byte as they were.
 */
export function takeSignInCode(rawUrl: string): { code: string | undefined; url: string } {
  const q = rawUrl.indexOf('?');
  if (q < 0) return { code: undefined, url: rawUrl };
  let code: string | undefined;
  const kept = rawUrl
    .slice(q + 1)
    .split('&')
    .filter((segment) => {
      const [pair] = new URLSearchParams(segment);
      if (!pair || pair[0] !== SIGN_IN_PARAM) return true;
      code ??= pair[1];
      return false;
    });
  if (code === undefined) return { code: undefined, url: rawUrl };
  const path = rawUrl.slice(0, q);
  return { code, url: kept.length ? `${path}?${kept.join('&')}` : path };
}
