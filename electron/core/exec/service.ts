import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { ExecRequest, ExecResult, ExecStreamLine } from '../../../shared/schemas/exec';
import type { BoxService } from '../boxes/service';
import type { CoreConfig } from '../config';
import type { ContainerEngine, ExecStreams } from '../engine/container-engine';
import { newId } from '../ids';
import type { Disposable } from '../lifetime';
import { ProcessSweeper, SESSION_ENV } from './process-sweeper';
import { TerminalSession, type SessionSpec } from './terminal-session';

export interface ExecServiceDeps {
  engine: ContainerEngine;
  boxes: BoxService;
  config: CoreConfig;
  log: FastifyBaseLogger;
}

/** A login shell: bash where the box has it, else sh. */
export const CONSOLE_COMMAND = ['/bin/sh', '-c', 'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi'];

export class ExecService implements Disposable {
  readonly sweeper: ProcessSweeper;
  private readonly sessions = new Map<string, TerminalSession>();

  constructor(private readonly deps: ExecServiceDeps) {
    this.sweeper = new ProcessSweeper(deps.engine);
  }

  /** The box's environment as of now, under the request's. */
  private environment(project: string, name: string, extra: Record<string, string> | undefined, sessionId: string) {
    const row = this.deps.boxes.requireRunning(project, name);
    const boxEnv = JSON.parse(row.environment) as Record<string, string>;
    return { row, env: { ...boxEnv, ...extra, [SESSION_ENV]: sessionId } };
  }

  assertRunnable(project: string, name: string): void {
    this.deps.boxes.requireRunning(project, name);
  }

  /** Runs a command to completion; `onChunk` (for x-ndjson) receives output as it comes. */
  async run(project: string, name: string, req: ExecRequest, onChunk?: (line: ExecStreamLine) => void, signal?: AbortSignal): Promise<ExecResult> {
    const sessionId = newId('ses');
    const { row, env } = this.environment(project, name, req.env, sessionId);
    const containerId = row.container_id!;
    const started = Date.now();
    const stdin = req.stdin !== undefined;
    const execId = await this.deps.engine.createExec(containerId, { command: req.command, env, cwd: req.cwd, tty: false, stdin });
    const streams = await this.deps.engine.startExec(execId, { tty: false, stdin });
    const limit = this.deps.config.execOutputLimit;
    const out = { 1: { parts: [] as Buffer[], size: 0, decoder: new StringDecoder('utf8') }, 2: { parts: [] as Buffer[], size: 0, decoder: new StringDecoder('utf8') } };
    let truncated = false;
    const collect = (channel: 1 | 2) => (payload: Buffer) => {
      const o = out[channel];
      const room = limit - o.size;
      if (room <= 0) {
        truncated = true;
        return;
      }
      const kept = payload.length > room ? payload.subarray(0, room) : payload;
      if (kept.length < payload.length) truncated = true;
      o.size += kept.length;
      if (onChunk) {
        const text = o.decoder.write(kept);
        if (text) onChunk({ type: channel === 1 ? 'stdout' : 'stderr', data: text });
      } else {
        o.parts.push(kept);
      }
    };
    let timedOut = false;
    const timer = req.timeout_s
      ? setTimeout(() => {
          timedOut = true;
          void this.sweeper.killAll(containerId, sessionId).catch((err) => this.deps.log.warn({ err }, 'exec timeout kill failed'));
        }, req.timeout_s * 1000)
      : null;
    // A client that goes away (Ctrl-C on `box exec`) takes its command with it.
    const onAbort = () => void this.sweeper.killAll(containerId, sessionId).catch((err) => this.deps.log.warn({ err }, 'exec abort kill failed'));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await pump(streams, collect(1), collect(2), req.stdin);
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    const exitCode = await this.exitCode(execId);
    // Whatever the command left running in the background goes with it.
    if (timedOut) await this.sweeper.killAll(containerId, sessionId).catch(() => undefined);
    const result: ExecResult = {
      exit_code: exitCode,
      stdout: onChunk ? '' : Buffer.concat(out[1].parts).toString('utf8'),
      stderr: onChunk ? '' : Buffer.concat(out[2].parts).toString('utf8'),
      truncated,
      timed_out: timedOut,
      duration_ms: Date.now() - started,
    };
    if (onChunk) {
      for (const [channel, o] of Object.entries(out)) {
        const rest = o.decoder.end();
        if (rest) onChunk({ type: channel === '1' ? 'stdout' : 'stderr', data: rest });
      }
    }
    return result;
  }

  /** The exit code, once the engine has recorded it. */
  async exitCode(execId: string): Promise<number> {
    for (let i = 0; i < 100; i++) {
      const state = await this.deps.engine.inspectExec(execId);
      if (!state.running && state.exitCode !== null) return state.exitCode;
      await new Promise((r) => setTimeout(r, Math.min(5 * (i + 1), 50)));
    }
    return -1;
  }

  /** Starts an interactive session (exec with tty=0|1, or a console). */
  async open(project: string, name: string, spec: Omit<SessionSpec, 'env' | 'containerId' | 'id' | 'project' | 'box'> & { env?: Record<string, string> }): Promise<TerminalSession> {
    const id = newId('ses');
    const { row, env } = this.environment(project, name, spec.env, id);
    const session = new TerminalSession(
      { ...spec, id, env, containerId: row.container_id!, project, box: name },
      { engine: this.deps.engine, sweeper: this.sweeper, log: this.deps.log, graceMs: this.deps.config.sessionGraceSeconds * 1000, exitCode: (e) => this.exitCode(e) },
    );
    this.sessions.set(id, session);
    session.onEnd(() => this.sessions.delete(id));
    await session.start();
    return session;
  }

  find(id: string): TerminalSession | undefined {
    return this.sessions.get(id);
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.end('core shutting down')));
  }
}

/** Collects the exec's output, writing stdin first when given; resolves once both outputs have ended. */
function pump(streams: ExecStreams, onStdout: (b: Buffer) => void, onStderr: (b: Buffer) => void, stdin: string | undefined): Promise<void> {
  const drain = (stream: Readable, onData: (b: Buffer) => void) =>
    new Promise<void>((resolve, reject) => {
      stream.on('data', onData);
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
  const done = Promise.all([drain(streams.stdout, onStdout), drain(streams.stderr, onStderr)]).then(() => undefined);
  if (stdin !== undefined) streams.stdin?.end(stdin);
  return done;
}
