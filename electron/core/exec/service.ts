import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import type { ExecRequest, ExecResult, ExecStreamLine } from '../../../shared/schemas/exec';
import { refusedAsConflict, type BoxesPort, type BoxRow } from '../boxes/port';
import type { CoreConfig } from '../config';
import { EngineError, type ContainerEngine, type ExecStreams } from '../engine/container-engine';
import { newId } from '../ids';
import type { Disposable } from '../lifetime';
import { CappedOutput } from './capped-output';
import { ProcessSweeper, SESSION_ENV } from '../engine/process-sweeper';
import { TerminalSession, type SessionSpec } from './terminal-session';

export interface ExecServiceDeps {
  engine: ContainerEngine;
  boxes: Pick<BoxesPort, 'awake' | 'use' | 'containerRefused' | 'oomSince' | 'environmentOf'>;
  config: CoreConfig;
  log: FastifyBaseLogger;
}

/** Exec and console sessions: ses_ and 20 base32 characters. */
export const SESSION_ID_PREFIX = 'ses';

/** After a timeout, how long the answer waits for the kill to end the output before it goes without it. */
const KILL_GRACE_MS = 2000;
/** How long an exec that ended with 137 waits for the engine's OOM event. */
const OOM_EVENT_WAIT_MS = 1000;

/**
 * An exec this core started that the engine (or the box's agent) no longer knows: the box's main
 * process ended under it and took it along (a new agent, in the box started again, never ran it).
 * That is the box's state, a 409 as a refused exec is, not a missing route.
 */
function goneWithBox(err: unknown): never {
  if (err instanceof EngineError && err.kind === 'not_found')
    throw new EngineError('conflict', `the command ended with the box's main process (${err.message})`);
  throw err;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A login shell: bash where the box has it, else sh. */
export const CONSOLE_COMMAND = [
  '/bin/sh',
  '-c',
  'if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi',
];

export class ExecService implements Disposable {
  readonly sweeper: ProcessSweeper;
  private readonly sessions = new Map<string, TerminalSession>();

  constructor(private readonly deps: ExecServiceDeps) {
    this.sweeper = new ProcessSweeper(deps.engine);
  }

  /** The box (woken if paused) and its environment as of now, under the request's. */
  private async environment(
    project: string,
    name: string,
    extra: Record<string, string> | undefined,
    sessionId: string,
  ) {
    const row = await this.deps.boxes.awake(project, name);
    const boxEnv = await this.deps.boxes.environmentOf(row);
    return { row, env: { ...boxEnv, ...extra, [SESSION_ENV]: sessionId } };
  }

  /** 409 unless the box runs or can be woken (a paused one is woken now). */
  async assertRunnable(project: string, name: string): Promise<void> {
    await this.deps.boxes.awake(project, name);
  }

  /** Runs a command to completion; `onChunk` (for x-ndjson) receives output as it comes. */
  async run(
    project: string,
    name: string,
    req: ExecRequest,
    onChunk?: (line: ExecStreamLine) => void,
    signal?: AbortSignal,
  ): Promise<ExecResult> {
    const sessionId = newId(SESSION_ID_PREFIX);
    const { row, env } = await this.environment(project, name, req.env, sessionId);
    // In use while it runs: the idle clocks never pause a box under a running command.
    const release = this.deps.boxes.use(row.id);
    try {
      return await this.runIn(row, env, sessionId, req, onChunk, signal);
    } finally {
      release();
    }
  }

  private async runIn(
    row: BoxRow,
    env: Record<string, string>,
    sessionId: string,
    req: ExecRequest,
    onChunk: ((line: ExecStreamLine) => void) | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ExecResult> {
    const containerId = row.container_id!;
    const started = Date.now();
    const stdin = req.stdin !== undefined;
    const { execId, streams } = await refusedAsConflict(this.deps.boxes, row, async () => {
      const id = await this.deps.engine.createExec(containerId, {
        command: req.command,
        env,
        cwd: req.cwd,
        tty: false,
        stdin,
      });
      return { execId: id, streams: await this.deps.engine.startExec(id, { tty: false, stdin }) };
    });
    const output = new CappedOutput(this.deps.config.execOutputLimit, onChunk);
    const kill = (why: string) =>
      this.sweeper
        .killAll(containerId, sessionId)
        .catch((err) => this.deps.log.warn({ err }, `exec ${why} kill failed`));
    // A client that goes away (Ctrl-C on `box exec`) takes its command with it.
    const onAbort = () => void kill('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    const pumped = pump(streams, output.collect(1), output.collect(2), req.stdin).then(
      () => true,
      () => true,
    );
    let timedOut: boolean;
    try {
      timedOut = await this.timedOut(pumped, req.timeout_s, () => kill('timeout'), streams);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const exitCode = timedOut
      ? await this.exitCodeNow(execId)
      : await refusedAsConflict(this.deps.boxes, row, () => this.exitCode(execId).catch(goneWithBox));
    const oomKilled = exitCode === 137 && (await this.oomKilled(containerId, started));
    const result: ExecResult = {
      exit_code: exitCode,
      stdout: output.text(1),
      stderr: output.text(2),
      truncated: output.truncated,
      timed_out: timedOut,
      oom_killed: oomKilled,
      duration_ms: Date.now() - started,
    };
    output.flush();
    return result;
  }

  /**
   * Waits for the output to end, or for `timeoutS`. timeout_s bounds the answer: on a timeout the
   * kill gets a moment to end the output, then the answer goes without waiting for it (a fork bomb
   * can keep the sweep itself from starting).
   */
  private async timedOut(
    pumped: Promise<boolean>,
    timeoutS: number | undefined,
    kill: () => Promise<void>,
    streams: ExecStreams,
  ): Promise<boolean> {
    let timer: NodeJS.Timeout | null = null;
    const deadline = timeoutS
      ? new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutS * 1000)))
      : null;
    try {
      if (await (deadline ? Promise.race([pumped, deadline]) : pumped)) return false;
      const ended = await Promise.race([
        Promise.all([pumped, kill()]).then(() => true),
        delay(KILL_GRACE_MS).then(() => false),
      ]);
      if (!ended) streams.close();
      return true;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  /** Whether the engine reported an OOM kill in the container since the exec started (its event may trail the exit). */
  private async oomKilled(containerId: string, since: number): Promise<boolean> {
    for (let waited = 0; ; waited += 100) {
      if (this.deps.boxes.oomSince(containerId, since)) return true;
      if (waited >= OOM_EVENT_WAIT_MS) return false;
      await delay(100);
    }
  }

  /** The exit code if the process has ended, else -1 (a timed-out answer does not wait for it). */
  private async exitCodeNow(execId: string): Promise<number> {
    const state = await this.deps.engine.inspectExec(execId).catch(() => null);
    return state && !state.running && state.exitCode !== null ? state.exitCode : -1;
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
  async open(
    project: string,
    name: string,
    spec: Omit<SessionSpec, 'env' | 'containerId' | 'id' | 'project' | 'box'> & { env?: Record<string, string> },
  ): Promise<TerminalSession> {
    const id = newId(SESSION_ID_PREFIX);
    const { row, env } = await this.environment(project, name, spec.env, id);
    const session = new TerminalSession(
      { ...spec, id, env, containerId: row.container_id!, project, box: name },
      {
        engine: this.deps.engine,
        sweeper: this.sweeper,
        log: this.deps.log,
        graceMs: this.deps.config.sessionGraceSeconds * 1000,
        exitCode: (e) => this.exitCode(e),
      },
    );
    this.sessions.set(id, session);
    // An open session keeps the box in use (the idle clocks wait) until it ends.
    const release = this.deps.boxes.use(row.id);
    session.onEnd(() => {
      this.sessions.delete(id);
      release();
    });
    try {
      await refusedAsConflict(this.deps.boxes, row, () => session.start());
    } catch (err) {
      this.sessions.delete(id);
      release();
      throw err;
    }
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
function pump(
  streams: ExecStreams,
  onStdout: (b: Buffer) => void,
  onStderr: (b: Buffer) => void,
  stdin: string | undefined,
): Promise<void> {
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
