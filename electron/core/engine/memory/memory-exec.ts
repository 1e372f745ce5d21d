import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { EngineError, type ExecSpec, type ExecState, type ExecStreams } from '../container-engine';
import type { MemoryContainer } from './memory-container';
import { CommandError, emptyInput, MemoryProcess, resolveCommand, type Output } from './memory-process';

interface ExecRecord {
  id: string;
  container: MemoryContainer;
  spec: ExecSpec;
  process: MemoryProcess | null;
  /** Set when the command could not start (the engine answers 126 with pid 0). */
  failedCode: number | null;
}

const OCI = 'OCI runtime exec failed: exec failed: unable to start container process:';

function startFailure(err: CommandError): string {
  const reason = {
    'not-found': `stat ${err.command}: no such file or directory`,
    'not-in-path': 'executable file not found in $PATH',
    permission: 'permission denied',
    format: 'exec format error',
  }[err.failure];
  return `${OCI} exec: "${err.command}": ${reason}: unknown\r\n`;
}

/** A terminal turns each newline into CR LF, as the real engine's pty does. */
const onlcr = (out: Output): Output => ({
  write: (chunk) => out.write(Buffer.from(Buffer.from(chunk).toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1')),
});

/** Refuses what the engine refuses to run in: a container that does not run, or one that is paused. */
export function assertRunnable(container: MemoryContainer): void {
  if (container.status === 'paused')
    throw new EngineError('conflict', `Container ${container.id} is paused, unpause the container before exec`);
  if (container.status !== 'running') throw new EngineError('conflict', `Container ${container.id} is not running`);
}

/** Exec instances: made for a running container, started once, inspected after. */
export class ExecTable {
  private readonly records = new Map<string, ExecRecord>();

  create(container: MemoryContainer, spec: ExecSpec): string {
    assertRunnable(container);
    const id = randomBytes(32).toString('hex');
    this.records.set(id, { id, container, spec, process: null, failedCode: null });
    return id;
  }

  private get(id: string): ExecRecord {
    const record = this.records.get(id);
    if (!record) throw new EngineError('not_found', `No such exec instance: ${id}`);
    return record;
  }

  start(id: string, options: { tty: boolean; stdin: boolean }): ExecStreams {
    const record = this.get(id);
    const { container, spec } = record;
    assertRunnable(container);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const input = options.stdin ? new PassThrough() : null;
    let attached = true;
    const sink = (stream: PassThrough): Output =>
      container.gated({ write: (chunk) => attached && !stream.writableEnded && stream.write(chunk) });
    const out = options.tty ? onlcr(sink(stdout)) : sink(stdout);
    const err = options.tty ? out : sink(stderr);
    const finish = () => {
      stdout.end();
      stderr.end();
    };
    const env = { ...container.environment(), ...spec.env };
    const cwd = spec.cwd ?? container.workingDir();
    const close = () => {
      attached = false;
      stdout.destroy();
      stderr.destroy();
    };
    if (container.fs.resolve(cwd, true).node?.kind !== 'directory') {
      this.fail(
        record,
        out,
        `${OCI} chdir to cwd ("${cwd}") set in config.json failed: no such file or directory: unknown\r\n`,
      );
      finish();
      return { stdout, stderr, stdin: input, close };
    }
    try {
      const resolved = resolveCommand(container, spec.command, env, cwd);
      const process = new MemoryProcess(container, spec.command, env, cwd, {
        stdin: input ?? emptyInput(),
        stdout: out,
        stderr: err,
      });
      record.process = process;
      process.whenEnded(finish);
      process.run(resolved.program, resolved.argv);
    } catch (e) {
      if (!(e instanceof CommandError)) throw e;
      this.fail(record, out, startFailure(e));
      finish();
    }
    return { stdout, stderr, stdin: input, close };
  }

  private fail(record: ExecRecord, out: Output, message: string): void {
    record.failedCode = 126;
    out.write(message);
  }

  inspect(id: string): ExecState {
    const record = this.get(id);
    if (record.failedCode !== null) return { running: false, exitCode: record.failedCode, pid: 0 };
    const p = record.process;
    if (!p) return { running: false, exitCode: null, pid: 0 };
    return { running: p.running, exitCode: p.exitCode, pid: p.pid };
  }

  /** The memory engine's programs do not read the terminal's size; the engine's checks are kept. */
  resize(id: string): void {
    // The engine forgets the terminal of an exec that has ended.
    if (!this.get(id).process?.running) throw new EngineError('not_found', 'no such exec');
  }

  /** A container is gone: its execs go too. */
  forget(container: MemoryContainer): void {
    for (const [id, r] of this.records) if (r.container === container) this.records.delete(id);
  }
}
