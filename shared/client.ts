import { ApiError, type Problem } from './errors';
import type { Box, BoxCreate, BoxList, BoxUpdate } from './schemas/box';
import type { ExecRequest, ExecResult, ExecStreamLine } from './schemas/exec';
import type { PublishRequest } from './schemas/publishing';
import type { RestoreRequest, Snapshot, SnapshotCreate, SnapshotList } from './schemas/snapshots';
import type { BoxStats } from './schemas/stats';
import type { FileChanges, FileList, FileStat } from './schemas/files';
import type {
  Volume,
  VolumeAttach,
  VolumeBackup,
  VolumeBackupList,
  VolumeCreate,
  VolumeList,
  VolumeRestore,
  VolumeSnapshot,
  VolumeSnapshotList,
} from './schemas/volumes';
import { ServicesClient } from './services-client';
import type { Base, BaseCreate, Health, SystemInfo, Token, TokenCreate, TokenCreated, Version } from './schemas/system';

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

export interface BoxListFilter {
  status?: string;
  tag?: string[];
  limit?: number;
  cursor?: string;
}

const enc = encodeURIComponent;

/** A query string from pairs (repeated keys allowed); shared/ has no URLSearchParams. */
export function queryString(pairs: [string, string | number | boolean | undefined][]): string {
  const parts = pairs.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A typed client for the /v1 API, shared by the renderer, the CLI and tests. */
export class BoxdeskClient {
  /** Services and their deployments. */
  readonly services: ServicesClient;

  constructor(private readonly options: ClientOptions) {
    this.services = new ServicesClient(this);
  }

  get baseUrl(): string {
    return this.options.baseUrl.replace(/\/+$/, '');
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
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    return this.send(method, path, h, body === undefined ? undefined : JSON.stringify(body), signal);
  }

  /** Sends a body of bytes as application/octet-stream (streamed when it is a stream); hands back the response. */
  async rawBytes(
    method: string,
    path: string,
    body: RequestBody,
    headers: Record<string, string> = {},
  ): Promise<FetchResponse> {
    const h: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/octet-stream',
      ...headers,
    };
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`;
    return this.send(method, path, h, body);
  }

  private async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: RequestBody | undefined,
    signal?: unknown,
  ): Promise<FetchResponse> {
    const streamed = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
    let res: FetchResponse;
    try {
      res = await this.options.fetch(this.baseUrl + path, {
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

  version(): Promise<Version> {
    return this.request('GET', '/version');
  }

  /** The data dir and the engine's capacity (scope read). */
  system(): Promise<SystemInfo> {
    return this.request('GET', '/v1/system');
  }

  /** Health answers 503 when degraded; that is a state, not an error. */
  async health(): Promise<Health> {
    const res = await this.options.fetch(`${this.baseUrl}/healthz`, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    return (await res.json()) as Health;
  }

  listBoxes(project: string, filter: BoxListFilter = {}): Promise<BoxList> {
    const qs = queryString([
      ['status', filter.status],
      ...(filter.tag ?? []).map((t): [string, string] => ['tag', t]),
      ['limit', filter.limit],
      ['cursor', filter.cursor],
    ]);
    return this.request('GET', `/v1/projects/${enc(project)}/boxes${qs}`);
  }

  createBox(project: string, body: BoxCreate): Promise<Box> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes`, body);
  }

  getBox(project: string, name: string): Promise<Box> {
    return this.request('GET', `/v1/projects/${enc(project)}/boxes/${enc(name)}`);
  }

  updateBox(project: string, name: string, body: BoxUpdate): Promise<Box> {
    return this.request('PUT', `/v1/projects/${enc(project)}/boxes/${enc(name)}`, body);
  }

  deleteBox(project: string, name: string): Promise<void> {
    return this.request('DELETE', `/v1/projects/${enc(project)}/boxes/${enc(name)}`);
  }

  stopBox(project: string, name: string): Promise<Box> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(name)}/stop`);
  }

  resumeBox(project: string, name: string): Promise<Box> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(name)}/resume`);
  }

  /** Publishes the box at its preview URL (`url` in the answer). */
  publishBox(project: string, name: string, body: PublishRequest = {}): Promise<Box> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(name)}/publish`, body);
  }

  unpublishBox(project: string, name: string): Promise<Box> {
    return this.request('DELETE', `/v1/projects/${enc(project)}/boxes/${enc(name)}/publish`);
  }

  logs(
    project: string,
    name: string,
    options: { tail?: number; follow?: boolean; signal?: unknown } = {},
  ): Promise<FetchResponse> {
    const qs = queryString([
      ['tail', options.tail],
      ['follow', options.follow ? 'true' : undefined],
    ]);
    return this.raw(
      'GET',
      `/v1/projects/${enc(project)}/boxes/${enc(name)}/logs${qs}`,
      undefined,
      { accept: 'text/plain' },
      options.signal,
    );
  }

  /** One sample of the box's resource use. */
  boxStats(project: string, name: string): Promise<BoxStats> {
    return this.request('GET', `/v1/projects/${enc(project)}/boxes/${enc(name)}/stats`);
  }

  /** One BoxStats JSON line a second (application/x-ndjson) until the client leaves. */
  boxStatsStream(project: string, name: string, signal?: unknown): Promise<FetchResponse> {
    return this.raw(
      'GET',
      `/v1/projects/${enc(project)}/boxes/${enc(name)}/stats?stream=1`,
      undefined,
      { accept: 'application/x-ndjson' },
      signal,
    );
  }

  exec(project: string, name: string, body: ExecRequest): Promise<ExecResult> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(name)}/exec`, body);
  }

  /** The x-ndjson exec stream; parse each line as ExecStreamLine. */
  execStream(project: string, name: string, body: ExecRequest): Promise<FetchResponse> {
    return this.raw('POST', `/v1/projects/${enc(project)}/boxes/${enc(name)}/exec`, body, {
      accept: 'application/x-ndjson',
    });
  }

  private filesPath(project: string, name: string, route = ''): string {
    return `/v1/projects/${enc(project)}/boxes/${enc(name)}/files${route}`;
  }

  /** A file's bytes: the response's body is the stream (Content-Length says how many). */
  readFile(project: string, name: string, path: string): Promise<FetchResponse> {
    return this.raw('GET', this.filesPath(project, name) + queryString([['path', path]]), undefined, {
      accept: 'application/octet-stream',
    });
  }

  /** A directory's tree as a tar stream (regular files and directories, names relative to it). */
  readArchive(project: string, name: string, path: string): Promise<FetchResponse> {
    return this.raw('GET', this.filesPath(project, name, '/archive') + queryString([['path', path]]), undefined, {
      accept: 'application/x-tar',
    });
  }

  /**
   * Writes a file from bytes or a stream; creates missing parents. Give `size` with a stream so it
   * goes with a Content-Length and straight into the box (without it the core spools it first).
   */
  async writeFile(
    project: string,
    name: string,
    path: string,
    body: RequestBody,
    options: { mode?: string; size?: number } = {},
  ): Promise<FileStat> {
    const headers: Record<string, string> =
      options.size !== undefined ? { 'content-length': String(options.size) } : {};
    const res = await this.rawBytes(
      'PUT',
      this.filesPath(project, name) +
        queryString([
          ['path', path],
          ['mode', options.mode],
        ]),
      body,
      headers,
    );
    return (await res.json()) as FileStat;
  }

  statFile(project: string, name: string, path: string): Promise<FileStat> {
    return this.request('GET', this.filesPath(project, name, '/stat') + queryString([['path', path]]));
  }

  listFiles(project: string, name: string, path: string): Promise<FileList> {
    return this.request('GET', this.filesPath(project, name, '/list') + queryString([['path', path]]));
  }

  deleteFile(project: string, name: string, path: string, options: { recursive?: boolean } = {}): Promise<void> {
    return this.request(
      'DELETE',
      this.filesPath(project, name) +
        queryString([
          ['path', path],
          ['recursive', options.recursive ? 'true' : undefined],
        ]),
    );
  }

  makeDirectory(project: string, name: string, path: string, options: { parents?: boolean } = {}): Promise<FileStat> {
    return this.request(
      'POST',
      this.filesPath(project, name, '/mkdir') +
        queryString([
          ['path', path],
          ['parents', options.parents ? 'true' : undefined],
        ]),
    );
  }

  fileChanges(project: string, name: string): Promise<FileChanges> {
    return this.request('GET', this.filesPath(project, name, '/changes'));
  }

  listBases(): Promise<{ items: Base[] }> {
    return this.request('GET', '/v1/bases');
  }

  createBase(body: BaseCreate): Promise<Base> {
    return this.request('POST', '/v1/bases', body);
  }

  deleteBase(name: string): Promise<void> {
    return this.request('DELETE', `/v1/bases/${enc(name)}`);
  }

  /** Streams a root filesystem tar into a new base; `size` (bytes) lets the core report progress against a total. */
  async importBase(name: string, tar: RequestBody, size?: number): Promise<Base> {
    const headers: Record<string, string> = size !== undefined ? { 'content-length': String(size) } : {};
    const res = await this.rawBytes('POST', `/v1/bases/${enc(name)}/import`, tar, headers);
    return (await res.json()) as Base;
  }

  createSnapshot(project: string, box: string, body: SnapshotCreate = {}): Promise<Snapshot> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(box)}/snapshots`, body);
  }

  listSnapshots(project: string, box: string): Promise<SnapshotList> {
    return this.request('GET', `/v1/projects/${enc(project)}/boxes/${enc(box)}/snapshots`);
  }

  listProjectSnapshots(project: string): Promise<SnapshotList> {
    return this.request('GET', `/v1/projects/${enc(project)}/snapshots`);
  }

  getSnapshot(project: string, id: string): Promise<Snapshot> {
    return this.request('GET', `/v1/projects/${enc(project)}/snapshots/${enc(id)}`);
  }

  deleteSnapshot(project: string, id: string): Promise<void> {
    return this.request('DELETE', `/v1/projects/${enc(project)}/snapshots/${enc(id)}`);
  }

  restoreBox(project: string, box: string, body: RestoreRequest): Promise<Box> {
    return this.request('POST', `/v1/projects/${enc(project)}/boxes/${enc(box)}/restore`, body);
  }

  /** A new box whose root is a copy-on-write copy of a box (at this instant) or of a snapshot (its id). */
  forkBox(
    project: string,
    source: string,
    name: string,
    extra: Omit<BoxCreate, 'name' | 'fork' | 'base'> = {},
  ): Promise<Box> {
    return this.createBox(project, { ...extra, name, fork: source });
  }

  private volumePath(project: string, name?: string, route = ''): string {
    return `/v1/projects/${enc(project)}/volumes${name === undefined ? '' : `/${enc(name)}`}${route}`;
  }

  /** An empty volume, or a clone (from_volume, from_snapshot or from_backup). */
  createVolume(project: string, body: VolumeCreate): Promise<Volume> {
    return this.request('POST', this.volumePath(project), body);
  }

  listVolumes(project: string): Promise<VolumeList> {
    return this.request('GET', this.volumePath(project));
  }

  getVolume(project: string, name: string): Promise<Volume> {
    return this.request('GET', this.volumePath(project, name));
  }

  deleteVolume(project: string, name: string): Promise<void> {
    return this.request('DELETE', this.volumePath(project, name));
  }

  /** Mounts the volume in a box (its container is recreated, root kept: a running box restarts). */
  attachVolume(project: string, name: string, body: VolumeAttach): Promise<Volume> {
    return this.request('POST', this.volumePath(project, name, '/attach'), body);
  }

  detachVolume(project: string, name: string, box: string): Promise<Volume> {
    return this.request('POST', this.volumePath(project, name, '/detach'), { box });
  }

  createVolumeSnapshot(project: string, name: string): Promise<VolumeSnapshot> {
    return this.request('POST', this.volumePath(project, name, '/snapshots'));
  }

  listVolumeSnapshots(project: string, name: string): Promise<VolumeSnapshotList> {
    return this.request('GET', this.volumePath(project, name, '/snapshots'));
  }

  deleteVolumeSnapshot(project: string, name: string, id: string): Promise<void> {
    return this.request('DELETE', this.volumePath(project, name, `/snapshots/${enc(id)}`));
  }

  /** Starts a backup (pending); it ends done or failed (volume.backup events, or poll getVolumeBackup). */
  createVolumeBackup(project: string, name: string): Promise<VolumeBackup> {
    return this.request('POST', this.volumePath(project, name, '/backups'));
  }

  listVolumeBackups(project: string, name: string): Promise<VolumeBackupList> {
    return this.request('GET', this.volumePath(project, name, '/backups'));
  }

  getVolumeBackup(project: string, name: string, id: string): Promise<VolumeBackup> {
    return this.request('GET', this.volumePath(project, name, `/backups/${enc(id)}`));
  }

  /** The .tar.gz: Content-Length and X-Checksum-Sha256 (hex) in the headers, the body is the stream. */
  downloadVolumeBackup(project: string, name: string, id: string): Promise<FetchResponse> {
    return this.raw('GET', this.volumePath(project, name, `/backups/${enc(id)}/download`), undefined, {
      accept: 'application/gzip',
    });
  }

  deleteVolumeBackup(project: string, name: string, id: string): Promise<void> {
    return this.request('DELETE', this.volumePath(project, name, `/backups/${enc(id)}`));
  }

  restoreVolume(project: string, name: string, body: VolumeRestore): Promise<Volume> {
    return this.request('POST', this.volumePath(project, name, '/restore'), body);
  }

  listTokens(): Promise<{ items: Token[] }> {
    return this.request('GET', '/v1/tokens');
  }

  createToken(body: TokenCreate): Promise<TokenCreated> {
    return this.request('POST', '/v1/tokens', body);
  }

  deleteToken(id: string): Promise<void> {
    return this.request('DELETE', `/v1/tokens/${enc(id)}`);
  }

  /** The server-sent event stream (text/event-stream); pass Last-Event-ID to resume. */
  events(lastEventId?: string, signal?: unknown): Promise<FetchResponse> {
    return this.raw(
      'GET',
      '/v1/events',
      undefined,
      { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    );
  }

  get token(): string | undefined {
    return this.options.token;
  }

  /** ws(s) URL of an exec or console socket; the token goes in the subprotocol, never the URL. */
  socketUrl(
    project: string,
    name: string,
    kind: 'exec' | 'console',
    query: [string, string | number | boolean | undefined][] = [],
  ): string {
    return `${this.baseUrl.replace(/^http/, 'ws')}/v1/projects/${enc(project)}/boxes/${enc(name)}/${kind}${queryString(query)}`;
  }
}

export type { ExecStreamLine };
