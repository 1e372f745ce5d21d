import type { Socket } from 'node:net';
import posix from 'node:path/posix';
import { Readable } from 'node:stream';
import { setTimeout as wait } from 'node:timers/promises';
import type { ContainerFs } from './memory-fs';

/**
 * Processes of the memory engine. A faithful engine cannot run the binaries
 * of an image, so a "binary" here is a file whose first line names a
 * program written in TypeScript (`#!boxdesk-memory NAME`), looked up in a
 * registry the engine holds (built-ins, and whatever a test registers). A
 * command resolves through the container's files exactly as exec does —
 * PATH, symlinks, the x bit, `#!` interpreter lines — so a missing binary
 * fails as it does on the real engine.
 */
export type Program = (ctx: ProcessContext) => Promise<number> | number;

export const PROGRAM_MAGIC = '#!boxdesk-memory ';

export const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** A signal's name from `TERM`, `SIGTERM` or `15`; null when unknown. */
export function signalName(s: string): string | null {
  if (/^\d+$/.test(s)) return Object.entries(SIGNALS).find(([, n]) => n === Number(s))?.[0] ?? null;
  const name = s.toUpperCase().startsWith('SIG') ? s.toUpperCase() : `SIG${s.toUpperCase()}`;
  return name in SIGNALS ? name : null;
}

export interface Output {
  write(chunk: string | Buffer): void;
}

export interface ProcessIo {
  stdin: Readable;
  stdout: Output;
  stderr: Output;
}

export const emptyInput = (): Readable => Readable.from([]);

/** What the container gives its processes. */
export interface ProcessHost {
  readonly hostname: string;
  readonly fs: ContainerFs;
  readonly programs: ReadonlyMap<string, Program>;
  nextPid(): number;
  adopt(p: MemoryProcess): void;
  /** Resolves at once unless the container is paused, then when it thaws. */
  thawed(): Promise<void>;
  listen(port: number, onConnection: (socket: Socket) => void, owner: MemoryProcess): Promise<void>;
  /** Counts memory a process holds; past the container's limit the kernel kills one (OOM). */
  allocate(p: MemoryProcess, bytes: number): void;
  findProcess(pid: number): MemoryProcess | undefined;
}

export type CommandFailure = 'not-found' | 'not-in-path' | 'permission' | 'format';

/** A command that could not be started; the caller words it (exec, tini and sh each say it differently). */
export class CommandError extends Error {
  constructor(
    readonly failure: CommandFailure,
    readonly command: string,
  ) {
    super(`${command}: ${failure}`);
  }
}

export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A command resolved to the program it runs and that program's argv. */
export function resolveCommand(
  host: ProcessHost,
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  depth = 0,
): { program: Program; argv: string[]; path: string } {
  const command = argv[0] ?? '';
  let path: string | null = command;
  if (!command.includes('/')) {
    path = null;
    for (const d of (env.PATH ?? DEFAULT_PATH).split(':')) {
      const node = host.fs.resolve(posix.join(d || '.', command), true, cwd).node;
      if (node?.kind === 'file' && node.mode & 0o111) {
        path = posix.join(d, command);
        break;
      }
    }
    if (!path || !command) throw new CommandError('not-in-path', command);
  }
  const node = host.fs.resolve(path, true, cwd).node;
  if (!node) throw new CommandError('not-found', command);
  if (node.kind !== 'file' || !(node.mode & 0o111)) throw new CommandError('permission', command);
  const firstLine = node.data.subarray(0, 256).toString('utf8').split('\n')[0]!;
  if (firstLine.startsWith(PROGRAM_MAGIC)) {
    const program = host.programs.get(firstLine.slice(PROGRAM_MAGIC.length).trim());
    if (!program) throw new CommandError('format', command);
    return { program, argv: [command, ...argv.slice(1)], path };
  }
  if (firstLine.startsWith('#!') && depth < 4) {
    const [interpreter, ...args] = firstLine.slice(2).trim().split(/\s+/);
    if (!interpreter) throw new CommandError('format', command);
    return { ...resolveCommand(host, [interpreter, ...args, path, ...argv.slice(1)], env, cwd, depth + 1), path };
  }
  throw new CommandError('format', command);
}

/** What a program sees. */
export interface ProcessContext {
  readonly argv: string[];
  readonly env: Record<string, string>;
  cwd: string;
  readonly stdin: Readable;
  readonly stdout: Output;
  readonly stderr: Output;
  readonly pid: number;
  readonly hostname: string;
  readonly fs: ContainerFs;
  /** Aborted when the process ends (a signal, the container stopping): pass it to timers and waits. */
  readonly ended: AbortSignal;
  /** Replaces a signal's default action (the end of the process); SIGKILL cannot be caught. */
  trap(signal: string, action: (() => void) | 'ignore' | 'default'): void;
  /** Starts a command in the container (resolved like exec); throws CommandError when it cannot start. */
  spawn(
    argv: string[],
    io?: Partial<ProcessIo>,
    options?: { env?: Record<string, string>; cwd?: string },
  ): MemoryProcess;
  /** Runs another program in this very process (the shell's `exec`): same pid, signals reset. */
  replace(argv: string[], env?: Record<string, string>): Promise<number>;
  kill(pid: number, signal: string): boolean;
  /** Where a command resolves (`command -v`), or null. */
  which(command: string): string | null;
  listen(port: number, onConnection: (socket: Socket) => void): Promise<void>;
  allocate(bytes: number): void;
  /** A pause-aware sleep that ends early (rejecting) when the process ends. */
  sleep(ms: number): Promise<void>;
}

/** One process of a container. */
export class MemoryProcess {
  readonly pid: number;
  exitCode: number | null = null;
  readonly exited: Promise<number>;
  /** Bytes it holds, for the container's memory limit. */
  memory = 0;
  private resolveExit!: (code: number) => void;
  private readonly traps = new Map<string, (() => void) | 'ignore'>();
  private readonly controller = new AbortController();
  private readonly onEnd: (() => void)[] = [];

  constructor(
    private readonly host: ProcessHost,
    readonly argv: string[],
    readonly env: Record<string, string>,
    private cwd: string,
    readonly io: ProcessIo,
  ) {
    this.pid = host.nextPid();
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    host.adopt(this);
  }

  get running(): boolean {
    return this.exitCode === null;
  }

  /** Runs a resolved program; its return value is the exit code. */
  run(program: Program, argv = this.argv): void {
    void this.execute(program, argv).then(
      (code) => this.host.thawed().then(() => this.end(code)),
      (err: Error) => {
        if (!this.running) return;
        this.io.stderr.write(`${posix.basename(argv[0] ?? '')}: ${err.message}\n`);
        this.end(1);
      },
    );
  }

  private async execute(program: Program, argv: string[]): Promise<number> {
    return (await program(this.context(argv))) ?? 0;
  }

  whenEnded(fn: () => void): void {
    if (this.running) this.onEnd.push(fn);
    else fn();
  }

  /** Delivers a signal: the program's trap, or the default (the process ends with 128 + n). */
  signal(name: string): boolean {
    if (!this.running) return false;
    if (name === 'SIGKILL') {
      this.end(128 + SIGNALS.SIGKILL!);
      return true;
    }
    // A frozen process acts on a signal once it thaws.
    void this.host.thawed().then(() => {
      const trap = this.traps.get(name);
      if (!this.running || trap === 'ignore') return;
      if (trap) trap();
      else this.end(128 + (SIGNALS[name] ?? 15));
    });
    return true;
  }

  end(code: number): void {
    if (!this.running) return;
    this.exitCode = code;
    this.controller.abort(new Error(`process ${this.pid} ended`));
    for (const fn of this.onEnd.splice(0)) fn();
    this.resolveExit(code);
  }

  private context(argv: string[]): ProcessContext {
    const host = this.host;
    const ctx: Omit<ProcessContext, 'cwd'> = {
      argv,
      env: this.env,
      stdin: this.io.stdin,
      stdout: this.io.stdout,
      stderr: this.io.stderr,
      pid: this.pid,
      hostname: host.hostname,
      fs: host.fs,
      ended: this.controller.signal,
      trap: (signal, action) => {
        if (action === 'default') this.traps.delete(signal);
        else this.traps.set(signal, action);
      },
      spawn: (childArgv, io = {}, options = {}) => {
        const env = options.env ?? this.env;
        const cwd = options.cwd ?? this.cwd;
        const resolved = resolveCommand(host, childArgv, env, cwd);
        const child = new MemoryProcess(host, childArgv, env, cwd, { ...this.io, ...io });
        child.run(resolved.program, resolved.argv);
        return child;
      },
      replace: async (nextArgv, env = this.env) => {
        const resolved = resolveCommand(host, nextArgv, env, this.cwd);
        this.traps.clear();
        return (await resolved.program({ ...this.context(resolved.argv), env })) ?? 0;
      },
      kill: (pid, signal) => host.findProcess(pid)?.signal(signal) ?? false,
      which: (command) => {
        try {
          return resolveCommand(host, [command], this.env, this.cwd).path;
        } catch {
          return null;
        }
      },
      listen: (port, onConnection) => host.listen(port, onConnection, this),
      allocate: (bytes) => host.allocate(this, bytes),
      sleep: async (ms) => {
        await wait(ms, undefined, { signal: this.controller.signal });
        await host.thawed();
      },
    };
    // The working directory is the process's own: `cd` in a shell changes what its next command starts in.
    return Object.defineProperty(ctx, 'cwd', {
      get: () => this.cwd,
      set: (value: string) => (this.cwd = value),
      enumerable: true,
    }) as ProcessContext;
  }
}
