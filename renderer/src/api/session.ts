import { BoxdeskClient, type FetchLike } from '../../../shared/client';
import { ApiError } from '../../../shared/errors';

const TOKEN_KEY = 'boxdesk.token';

/** In Electron the preload names the core; served headless, the core is this page's own origin. */
export const apiUrl: string = window.boxdesk?.apiUrl || window.location.origin;

// shared/ types the signal as unknown (it sees no DOM); here it is always an AbortSignal or absent.
const windowFetch = fetch.bind(window);
export const browserFetch: FetchLike = (url, init) => windowFetch(url, init as RequestInit);

export function createClient(token?: string): BoxdeskClient {
  return new BoxdeskClient({ baseUrl: apiUrl, token, fetch: browserFetch });
}

/**
 * A sign-in URL carries the token in its fragment (`/#token=…`), which the
 * browser never sends to a server. Keep it for this tab's session and clear
 * the address bar, before the router reads the hash.
 */
export function takeTokenFromAddress(): void {
  const match = /^#token=([^&]+)/.exec(window.location.hash);
  if (!match) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]!));
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/`);
}

/** The token the app starts with: Electron's, else one from this tab's session. */
export function storedToken(): string | null {
  return window.boxdesk?.token ?? sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** What to tell the user: a problem's detail (and hint), or the failure's message. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.hint ? `${err.message} (${err.hint})` : err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export function isUnauthorized(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'unauthorized';
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called by the query cache and the event stream when the core answers 401. */
export function reportUnauthorized(): void {
  for (const l of unauthorizedListeners) l();
}

export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}
