import { readNdjson } from '../../shared/calls/byte-stream';
import type { BoxdeskClient, RequestBody } from '../../shared/client';
import type { Box as BoxInfo, BoxCreate } from '../../shared/schemas/box';
import type { ExecRequest, ExecResult, ExecStreamLine } from '../../shared/schemas/exec';
import type { FileStat } from '../../shared/schemas/files';
import type { JobStarted } from '../../shared/schemas/jobs';
import type { PublishRequest } from '../../shared/schemas/publishing';
import type { Snapshot, SnapshotCreate } from '../../shared/schemas/snapshots';

/** A command: an argv array (no shell), or a string run with /bin/sh -c. */
export type Command = string | readonly string[];
export type ExecOptions = Omit<ExecRequest, 'command' | 'background'>;
/** What a file write takes: text, bytes, or a stream of bytes (sent as it is read). */
export type FileData = string | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** What a Box needs of the client that made it: the calls, and how to make the Box of another name. */
export interface BoxHost {
  client: BoxdeskClient;
  /** Creates a box (idempotently) and waits until it has settled. */
  create(project: string, body: BoxCreate): Promise<Box>;
  /** Waits until a box is no longer creating, stopping or resuming. */
  settle(info: BoxInfo): Promise<BoxInfo>;
}

export const argv = (command: Command): string[] =>
  typeof command === 'string' ? ['/bin/sh', '-c', command] : [...command];

/** A box's files: whole reads and writes, listings, deletes. */
export class BoxFiles {
  readonly #box: Box;

  constructor(box: Box) {
    this.#box = box;
  }

  get #c(): BoxdeskClient {
    return this.#box.host.client;
  }

  /** The file's bytes. */
  async read(path: string): Promise<Uint8Array> {
    const res = await this.#c.readFile(this.#box.project, this.#box.name, path);
    return new Uint8Array(await (res as unknown as Response).arrayBuffer());
  }

  /** The file's bytes as a stream, read as they arrive (for large files). */
  async readStream(path: string): Promise<ReadableStream<Uint8Array>> {
    const res = await this.#c.readFile(this.#box.project, this.#box.name, path);
    return res.body as ReadableStream<Uint8Array>;
  }

  /** Writes (or replaces) a file, making missing parents; a stream is sent as it is read. */
  write(path: string, data: FileData, options: { mode?: string; size?: number } = {}): Promise<FileStat> {
    const body: RequestBody = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    return this.#c.writeFile(this.#box.project, this.#box.name, path, body, options);
  }

  /** The entries of a directory. */
  async list(path: string): Promise<FileStat[]> {
    return (await this.#c.listFiles(this.#box.project, this.#box.name, path)).items;
  }

  stat(path: string): Promise<FileStat> {
    return this.#c.statFile(this.#box.project, this.#box.name, path);
  }

  delete(path: string, options: { recursive?: boolean } = {}): Promise<void> {
    return this.#c.deleteFile(this.#box.project, this.#box.name, path, options);
  }

  mkdir(path: string, options: { parents?: boolean } = {}): Promise<FileStat> {
    return this.#c.makeDirectory(this.#box.project, this.#box.name, path, options);
  }
}

/** A box: run commands in it, read and write its files, stop, resume, snapshot, fork, publish, delete. */
export class Box {
  /** The box as the core last described it. */
  info: BoxInfo;
  readonly files: BoxFiles;
  readonly host: BoxHost;

  constructor(host: BoxHost, info: BoxInfo) {
    this.host = host;
    this.info = info;
    this.files = new BoxFiles(this);
  }

  get name(): string {
    return this.info.name;
  }
  get project(): string {
    return this.info.project;
  }
  get status(): BoxInfo['status'] {
    return this.info.status;
  }

  /** Runs a command to its end: exit code, stdout, stderr, and whether output was truncated or timed out. */
  exec(command: Command, options: ExecOptions = {}): Promise<ExecResult> {
    return this.host.client.exec(this.project, this.name, { ...options, command: argv(command) });
  }

  /** Runs a command and hands over its output as it comes (stdout and stderr lines, then the exit). */
  async *execStream(command: Command, options: ExecOptions = {}): AsyncGenerator<ExecStreamLine> {
    const res = await this.host.client.execStream(this.project, this.name, { ...options, command: argv(command) });
    yield* readNdjson<ExecStreamLine>(res.body as ReadableStream<Uint8Array>);
  }

  /** Starts a command in the background: a job whose output the core keeps (`client.jobOutput`). */
  startJob(command: Command, options: Omit<ExecOptions, 'stdin' | 'timeout_s'> = {}): Promise<JobStarted> {
    return this.host.client.startJob(this.project, this.name, { ...options, command: argv(command) });
  }

  /** Reads the box again. */
  async refresh(): Promise<BoxInfo> {
    return (this.info = await this.host.client.getBox(this.project, this.name));
  }

  async stop(): Promise<BoxInfo> {
    return (this.info = await this.host.settle(await this.host.client.stopBox(this.project, this.name)));
  }

  async resume(): Promise<BoxInfo> {
    return (this.info = await this.host.settle(await this.host.client.resumeBox(this.project, this.name)));
  }

  delete(): Promise<void> {
    return this.host.client.deleteBox(this.project, this.name);
  }

  /** A snapshot of the box's root (and /workspace) at this instant. */
  snapshot(options: SnapshotCreate = {}): Promise<Snapshot> {
    return this.host.client.createSnapshot(this.project, this.name, options);
  }

  /** Puts the box back as it was at a snapshot of it. */
  async restore(snapshotId: string): Promise<BoxInfo> {
    const info = await this.host.client.restoreBox(this.project, this.name, { snapshot_id: snapshotId });
    return (this.info = await this.host.settle(info));
  }

  /** A new box whose root is a copy-on-write copy of this one at this instant. */
  fork(name: string, options: Omit<BoxCreate, 'name' | 'fork' | 'base'> = {}): Promise<Box> {
    return this.host.create(this.project, { ...options, name, fork: this.name });
  }

  /** Publishes the box at its preview URL (`info.url`). */
  async publish(options: PublishRequest = {}): Promise<BoxInfo> {
    return (this.info = await this.host.client.publishBox(this.project, this.name, options));
  }

  async unpublish(): Promise<BoxInfo> {
    return (this.info = await this.host.client.unpublishBox(this.project, this.name));
  }
}
