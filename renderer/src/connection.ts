import { BoxdeskClient, type FetchLike } from '../../shared/client';
import { ApiError } from '../../shared/errors';

const TOKEN_KEY = 'boxdesk.token';

/** In Electron the preload names the core; served headless, the core is this page's own origin. */
export const apiUrl: string = window.boxdesk?.apiUrl ?? window.location.origin;

// shared/ types the signal as unknown (it sees no DOM); here it is always an AbortSignal or absent.
const windowFetch = fetch.bind(window);
const browserFetch: FetchLike = (url, init) => windowFetch(url, init as RequestInit);

export function createClient(token?: string): BoxdeskClient {
  return new BoxdeskClient({ baseUrl: apiUrl, token, fetch: browserFetch });
}

/** The token the app starts with: Electron's, else one pasted earlier in this tab. */
export function storedToken(): string | null {
  return window.boxdesk?.token ?? sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** What to tell the user: a problem's detail, or the failure's message. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export function isUnauthorized(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'unauthorized';
}
