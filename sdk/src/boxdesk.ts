import { readEvents, type StreamedEvent } from '../../shared/calls/event-stream';
import { BoxdeskClient, type FetchLike, type RequestBody, type UpOptions } from '../../shared/client';
import { ApiError } from '../../shared/errors';
import type { Box as BoxInfo, BoxCreate } from '../../shared/schemas/box';
import type { UpLine } from '../../shared/schemas/up';
import { Box, type BoxHost } from './box';
import { realPlatform, resolveConnection } from './connection';
import { DEFAULT_RETRY, retryingFetch, type RetryPolicy } from './retry';

export interface BoxdeskOptions {
  /** The core's URL; default as the `box` CLI: SERVICE_URL, else the local core (its listening.json). */
  url?: string;
  /** The bearer token; default as the CLI: SERVICE_TOKEN, else the local core's token file. */
  token?: string;
  /** A profile's SERVICE_PROFILE_<NAME>_URL and _TOKEN, as `box --profile`. */
  profile?: string;
  /** The project of boxes named without one; default BOX_PROJECT, else `default`. */
  project?: string;
  /** How long create, stop, resume and restore wait for the box to settle; default 120 s. */
  settleTimeoutMs?: number;
  /** Retries of what is safe to retry (429, 503, a lost connection); `false`: none. */
  retry?: Partial<RetryPolicy> | false;
  /** Another fetch (a proxy agent, a test's); default the global fetch. */
  fetch?: FetchLike;
}

export type BoxSpec = BoxCreate & { project?: string };
export interface ListOptions {
  project?: string;
  status?: BoxInfo['status'];
  tag?: string[];
}

const TRANSIENT = new Set(['creating', 'stopping', 'resuming']);
const globalFetch: FetchLike = (url, init) => fetch(url, init as RequestInit) as ReturnType<FetchLike>;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Boxes of the core: create (idempotently, waiting until it runs), get, list. */
export class Boxes {
  readonly #bd: Boxdesk;

  constructor(bd: Boxdesk) {
    this.#bd = bd;
  }

  /** Creates a box (or a fork, with `fork`) and waits until it runs; a retry never makes two. */
  create(spec: BoxSpec): Promise<Box> {
    const { project, ...body } = spec;
    return this.#bd.host.create(project ?? this.#bd.project, body);
  }

  async get(name: string, options: { project?: string } = {}): Promise<Box> {
    return new Box(this.#bd.host, await this.#bd.client.getBox(options.project ?? this.#bd.project, name));
  }

  /**
   * `box up`: a box from a project folder sent as a tar (a stream is sent as read; leave out what
   * .gitignore says), made by the core from its devcontainer.json. Yields the core's lines as they
   * come: progress, notes, the build log, command output, and last `done` naming the box (or
   * `error`). Again on the same folder, the same box is brought up to date.
   */
  up(folder: RequestBody, options: UpOptions & { project?: string } = {}): AsyncGenerator<UpLine> {
    const { project, ...rest } = options;
    return this.#bd.client.up(project ?? this.#bd.project, folder, rest);
  }

  /** Every box of the project (all pages), optionally of one status or with tags (`key:value`). */
  async list(options: ListOptions = {}): Promise<Box[]> {
    const out: Box[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#bd.client.listBoxes(options.project ?? this.#bd.project, { ...options, cursor });
      out.push(...page.items.map((info) => new Box(this.#bd.host, info)));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }
}

/**
 * The Boxdesk SDK: `new Boxdesk()` connects as the `box` CLI does. `boxes` makes and finds
 * boxes; `client` is the typed client of every /v1 route (the one the CLI and the window use).
 */
export class Boxdesk {
  readonly client: BoxdeskClient;
  readonly url: string;
  readonly project: string;
  readonly boxes: Boxes;
  /** What a Box uses of its client. */
  readonly host: BoxHost;
  readonly #settleTimeoutMs: number;

  constructor(options: BoxdeskOptions = {}) {
    const platform = realPlatform();
    const connection = resolveConnection(options, platform);
    const retry = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
    this.url = connection.url;
    this.project = options.project ?? (platform.env.BOX_PROJECT || 'default');
    this.#settleTimeoutMs = options.settleTimeoutMs ?? 120_000;
    this.client = new BoxdeskClient({
      baseUrl: connection.url,
      token: connection.token,
      fetch: retryingFetch(options.fetch ?? globalFetch, retry),
    });
    this.host = {
      client: this.client,
      create: async (project, body) => {
        const info = await this.client.createBox(project, body, { idempotencyKey: crypto.randomUUID() });
        return new Box(this.host, await this.#settle(info));
      },
      settle: (info) => this.#settle(info),
    };
    this.boxes = new Boxes(this);
  }

  /** Waits while the box is creating, stopping or resuming; a box that lands in `error` throws its reason. */
  async #settle(info: BoxInfo): Promise<BoxInfo> {
    const deadline = Date.now() + this.#settleTimeoutMs;
    for (let wait = 100; TRANSIENT.has(info.status); wait = Math.min(wait * 2, 1000)) {
      if (Date.now() > deadline)
        throw new ApiError('conflict', `box ${info.name} is still ${info.status} after ${this.#settleTimeoutMs} ms`);
      await sleep(wait);
      info = await this.client.getBox(info.project, info.name);
    }
    if (info.status === 'error')
      throw new ApiError('conflict', `box ${info.name} failed: ${info.status_reason ?? 'the core gave no reason'}`, {
        hint: 'its logs (client.logs) say why; delete it with box.delete()',
      });
    return info;
  }

  /**
   * The core's events (GET /v1/events) as they happen, until `signal` aborts; a `reset` means
   * events were missed: read again what you follow. Pass `lastEventId` to resume after a drop.
   */
  async *events(options: { signal?: AbortSignal; lastEventId?: string } = {}): AsyncGenerator<StreamedEvent> {
    const res = await this.client.events(options.lastEventId, options.signal);
    try {
      yield* readEvents(res.body as ReadableStream<Uint8Array>);
    } catch (err) {
      if (!options.signal?.aborted) throw err;
    }
  }
}
