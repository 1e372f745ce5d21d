import { ApiError, type Problem } from '../errors';
import type { Health } from '../schemas/system';

/** The slice of the Fetch API the client needs; browsers and Node 20 both provide it. */
export interface FetchResponse {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
  body: unknown;
}
/**
 * A request body: JSON text, bytes, or a stream of bytes (a web ReadableStream, a Blob, or an async
 * iterable of Uint8Array). Streams go with duplex: 'half', which Node's fetch requires.
 */
export type RequestBody = string | Uint8Array | object;
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: RequestBody; signal?: unknown; duplex?: 'half' },
) => Promise<FetchResponse>;

export interface ClientOptions {
  /** e.g. http://127.0.0.1:7420 */
  baseUrl: string;
  token?: string;
  fetch: FetchLike;
}

export const enc = encodeURIComponent;

/** The path of a box, or of `route` below it (`/publish`). */
export function boxPath(project: string, name: string, route = ''): string {
  return `/v1/projects/${enc(project)}/boxes/${enc(name)}${route}`;
}

/** A query string from pairs (repeated keys allowed); shared/ has no URLSearchParams. */
export function queryString(pairs: [string, string | number | boolean | undefined][]): string {
  const parts = pairs.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A mixin's base: the core the area calls are added to (client.ts composes them). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the mixin pattern's constructor type
export type ClientConstructor = new (...args: any[]) => ClientCore;

/** Requests and their problems: what every area's calls go through. */
export class ClientCore {
  readonly #options: ClientOptions;

  constructor(options: ClientOptions) {
    this.#options = options;
  }

  get baseUrl(): string {
    return this.#options.baseUrl.replace(/\/+$/, '');
  }

  /** Sends a request; a non-2xx answer throws ApiError with the problem's code and detail. */
  async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await this.raw(method, path, body, headers);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  /** Like request, but hands back the response for streaming bodies. */
  async raw(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    signal?: unknown,
  ): Promise<FetchResponse> {
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (this.#options.token) h.authorization = `Bearer ${this.#options.token}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    return this.#send(method, path, h, body === undefined ? undefined : JSON.stringify(body), signal);
  }

  /** Sends a body of bytes as application/octet-stream (streamed when it is a stream); hands back the response. */
  async rawBytes(
    method: string,
    path: string,
    body: RequestBody,
    headers: Record<string, string> = {},
    signal?: unknown,
  ): Promise<FetchResponse> {
    const h: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/octet-stream',
      ...headers,
    };
    if (this.#options.token) h.authorization = `Bearer ${this.#options.token}`;
    return this.#send(method, path, h, body, signal);
  }

  async #send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: RequestBody | undefined,
    signal?: unknown,
  ): Promise<FetchResponse> {
    const streamed = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
    let res: FetchResponse;
    try {
      res = await this.#options.fetch(this.baseUrl + path, {
        method,
        headers,
        body,
        signal,
        ...(streamed ? { duplex: 'half' as const } : {}),
      });
    } catch (err) {
      throw new ApiError(
        'engine_unavailable',
        `cannot reach the Boxdesk core at ${this.baseUrl} (${(err as Error).message}); is it running?`,
      );
    }
    if (!res.ok) {
      const text = await res.text();
      let problem: Partial<Problem>;
      try {
        problem = JSON.parse(text) as Problem;
      } catch {
        problem = { detail: text.slice(0, 500) || `HTTP ${res.status}` };
      }
      throw ApiError.fromProblem(problem, res.status);
    }
    return res;
  }

  /** Health answers 503 when degraded; that is a state, not an error (no token, no problem mapping). */
  async health(): Promise<Health> {
    const res = await this.#options.fetch(`${this.baseUrl}/healthz`, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    return (await res.json()) as Health;
  }

  get token(): string | undefined {
    return this.#options.token;
  }
}
