import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Channel, type ClientControl, type ServerControl } from '../../../shared/protocol';
import type { ContainerEngine, ExecStreams } from '../engine/container-engine';
import { OutputRing } from './output-ring';
import type { ProcessSweeper } from '../engine/process-sweeper';

export const REPLAY_BYTES = 256 * 1024;
/** Pause the engine stream when this much is queued on the socket; resume below LOW_WATER. */
export const HIGH_WATER = 1024 * 1024;
export const LOW_WATER = 256 * 1024;
const CHANNEL_STDOUT = Buffer.of(Channel.stdout);
const CHANNEL_STDERR = Buffer.of(Channel.stderr);

export interface SessionSpec {
  id: string;
  /** The id of the token that opened the session: only it (or an admin token) may reattach. */
  owner: string;
  containerId: string;
  project: string;
  box: string;
  command: string[];
  env: Record<string, string>;
  cwd?: string;
  tty: boolean;
  cols?: number;
  rows?: number;
}

/** The socket side of a session, as the session sees it. */
export interface SessionClient {
  send(data: Buffer | string, done: (err?: Error) => void): void;
  close(code: number, reason: string): void;
}

interface SessionDeps {
  engine: ContainerEngine;
  sweeper: ProcessSweeper;
  log: FastifyBaseLogger;
  graceMs: number;
  exitCode(execId: string): Promise<number>;
}

/**
 * One process in a box with its terminal. It outlives a dropped socket for a
 * grace period; a reattach gets the newest output replayed. When it ends,
 * everything it started in the box is killed.
 */
export class TerminalSession {
  private execId = '';
  private stream: ExecStreams | null = null;
  private client: SessionClient | null = null;
  private readonly ring = new OutputRing(REPLAY_BYTES);
  private queued = 0;
  private paused = false;
  private graceTimer: NodeJS.Timeout | null = null;
  private ended = false;
  private readonly endListeners: (() => void)[] = [];
  private exit: number | null = null;

  constructor(
    readonly spec: SessionSpec & { project: string; box: string },
    private readonly deps: SessionDeps,
  ) {}

  get id(): string {
    return this.spec.id;
  }

  onEnd(listener: () => void): void {
    this.endListeners.push(listener);
  }

  async start(): Promise<void> {
    const { engine } = this.deps;
    this.execId = await engine.createExec(this.spec.containerId, {
      command: this.spec.command,
      env: this.spec.env,
      cwd: this.spec.cwd,
      tty: this.spec.tty,
      stdin: true,
    });
    const stream = await engine.startExec(this.execId, { tty: this.spec.tty, stdin: true });
    this.stream = stream;
    if (this.spec.tty && this.spec.cols && this.spec.rows) await this.resize(this.spec.cols, this.spec.rows);
    if (this.spec.tty) {
      stream.stdout.on('data', (chunk: Buffer) => this.output(chunk));
    } else {
      // Without a tty each frame to the client carries its channel in its first byte.
      stream.stdout.on('data', (payload: Buffer) => this.output(Buffer.concat([CHANNEL_STDOUT, payload])));
      stream.stderr.on('data', (payload: Buffer) => this.output(Buffer.concat([CHANNEL_STDERR, payload])));
    }
    stream.stderr.resume();
    // The process is done once both outputs are (an error ends them too).
    const done = (s: Readable) =>
      finished(s).catch((err: Error) => this.deps.log.debug({ err, session: this.id }, 'session stream ended early'));
    void Promise.all([done(stream.stdout), done(stream.stderr)]).then(() => this.finish());
  }

  /** Binds a socket; a previous one is told it was replaced. Replays the newest output. */
  attach(client: SessionClient): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = null;
    const previous = this.client;
    this.client = client;
    this.queued = 0;
    if (previous) previous.close(4000, 'another client attached to this session');
    const replay = this.spec.tty ? [this.ring.snapshot()] : this.ring.frames();
    const replayed = replay.reduce((n, b) => n + b.length, 0);
    this.sendControl({ type: 'ready', session: this.id, replayed_bytes: replayed });
    for (const frame of replay) if (frame.length) this.send(frame);
    if (this.exit !== null) this.closeWithExit(this.exit);
  }

  /** The socket went away: the session lives on for the grace period. */
  detach(client: SessionClient): void {
    if (this.client !== client) return;
    this.client = null;
    this.resumeStream();
    if (this.ended) return;
    this.graceTimer = setTimeout(
      () => void this.end('no client reattached within the grace period'),
      this.deps.graceMs,
    );
    this.graceTimer.unref();
  }

  input(frame: Buffer): void {
    if (!this.stream || this.ended) return;
    if (this.spec.tty) {
      this.stream.stdin?.write(frame);
    } else if (frame[0] === Channel.stdin && frame.length > 1) {
      this.stream.stdin?.write(frame.subarray(1));
    }
  }

  async control(message: ClientControl): Promise<void> {
    if (!this.stream || this.ended) return;
    switch (message.type) {
      case 'resize':
        if (this.spec.tty) await this.resize(message.cols, message.rows);
        return;
      case 'signal':
        await this.deps.sweeper.signal(this.spec.containerId, this.id, message.name);
        return;
      case 'eof':
        if (this.spec.tty) this.stream.stdin?.write('\x04');
        else this.stream.stdin?.end();
        return;
    }
  }

  private async resize(cols: number, rows: number): Promise<void> {
    await this.deps.engine
      .resizeExec(this.execId, cols, rows)
      .catch((err: Error) => this.deps.log.debug({ err }, 'resize failed'));
  }

  private output(chunk: Buffer): void {
    this.ring.push(chunk);
    if (!this.client) return;
    this.send(chunk);
    // Flow control: a flood must neither freeze the client nor grow memory.
    if (this.queued > HIGH_WATER && !this.paused) {
      this.paused = true;
      this.stream?.stdout.pause();
      this.stream?.stderr.pause();
    }
  }

  private send(data: Buffer | string): void {
    const client = this.client;
    if (!client) return;
    const size = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    this.queued += size;
    client.send(data, () => {
      if (this.client !== client) return;
      this.queued -= size;
      if (this.paused && this.queued < LOW_WATER) this.resumeStream();
    });
  }

  private resumeStream(): void {
    if (!this.paused) return;
    this.paused = false;
    this.stream?.stdout.resume();
    this.stream?.stderr.resume();
  }

  private sendControl(message: ServerControl): void {
    this.send(JSON.stringify(message));
  }

  private closeWithExit(code: number): void {
    this.sendControl({ type: 'exit', code });
    this.client?.close(1000, 'process exited');
    this.client = null;
  }

  /** The process ended by itself. */
  private async finish(): Promise<void> {
    if (this.ended || this.exit !== null) return;
    this.exit = -1;
    this.notifyEnded();
    const code = await this.deps.exitCode(this.execId).catch(() => -1);
    if (code < 0) {
      // The engine lost the process (it went down, taking the box's processes with it): there
      // is no exit code, and a made-up one would read as the process's own.
      await this.end(
        'the container engine lost the process (it stopped or is unreachable); the session ended without an exit code',
        'engine_unavailable',
        1011,
      );
      return;
    }
    this.exit = code;
    this.closeWithExit(code);
    await this.end('process exited');
  }

  /** Tells the owner once, as soon as the session is ending: no reattach to one being torn down. */
  private notifyEnded(): void {
    for (const listener of this.endListeners.splice(0)) listener();
  }

  /** Ends the session: every process it started in the box is killed. */
  async end(reason: string, code = 'session_ended', closeCode = 1000): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.deps.log.debug({ session: this.id, reason }, 'session ended');
    if (this.client) {
      this.sendControl({ type: 'error', code, message: reason });
      this.client.close(closeCode, reason.slice(0, 120));
      this.client = null;
    }
    this.stream?.close();
    this.notifyEnded();
    await this.deps.sweeper
      .killAll(this.spec.containerId, this.id)
      .catch((err: Error) => this.deps.log.warn({ err, session: this.id }, 'could not sweep session processes'));
  }
}
