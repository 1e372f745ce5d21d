import net, { type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EngineError,
  type ContainerSpec,
  type ContainerState,
  type ContainerStats,
  type ImageConfig,
  type ResourceLimits,
} from '../container-engine';
import { LogBuffer, type EventHub } from './memory-events';
import { cloneTree, ContainerFs, splitPath, type DirNode, type FsMount } from './memory-fs';
import {
  CommandError,
  DEFAULT_PATH,
  emptyInput,
  MemoryProcess,
  resolveCommand,
  type Output,
  type Program,
  type ProcessHost,
} from './memory-process';

export interface MemoryImage {
  id: string;
  refs: Set<string>;
  root: DirNode;
  labels: Record<string, string>;
  config: ImageConfig;
  layers: number;
  parentId: string | null;
}

export type ContainerStatus = 'created' | 'running' | 'paused' | 'exited';

/** The engine's own checks of a container's limits. */
export function checkLimits(limits: ResourceLimits, cpus: number): void {
  if (limits.cpus < 0.01 || limits.cpus > cpus)
    throw new EngineError(
      'invalid',
      `Range of CPUs is from 0.01 to ${cpus}.00, as there are only ${cpus} CPUs available`,
    );
  if (limits.ramMb * 1024 * 1024 < 6 * 1024 * 1024)
    throw new EngineError('invalid', 'Minimum memory limit allowed is 6MB');
}

/** What every process of a container holds besides what it allocates. */
export const PROCESS_BASE_BYTES = 1024 * 1024;

/** One container: its root and mounts, its processes, its log, its listening ports. */
export class MemoryContainer implements ProcessHost {
  status: ContainerStatus = 'created';
  exitCode = 0;
  oomKilled = false;
  readonly labels: Record<string, string>;
  readonly rootfs: DirNode;
  readonly fs: ContainerFs;
  readonly log = new LogBuffer();
  readonly networks = new Set<string>();
  limits: ResourceLimits;
  main: MemoryProcess | null = null;
  readonly processes = new Set<MemoryProcess>();
  private readonly listeners = new Map<number, { server: net.Server; sockets: Set<Socket> }>();
  private thaw: { promise: Promise<void>; resolve: () => void } | null = null;
  private frozenWrites: (() => void)[] = [];
  private lastPid = 0;
  private readonly exitWaiters: ((code: number) => void)[] = [];

  constructor(
    readonly id: string,
    public name: string,
    readonly spec: ContainerSpec,
    readonly image: MemoryImage,
    mounts: FsMount[],
    readonly programs: ReadonlyMap<string, Program>,
    private readonly events: EventHub,
  ) {
    this.labels = { ...image.labels, ...spec.labels };
    this.limits = { ...spec.limits };
    this.rootfs = cloneTree(image.root);
    this.fs = new ContainerFs(this.rootfs, mounts);
    // The engine makes each mount point in the root (so it shows in the root's changes).
    for (const m of mounts) new ContainerFs(this.rootfs, []).mkdirs(splitPath(m.path));
  }

  get hostname(): string {
    return this.spec.hostname;
  }

  get running(): boolean {
    return this.status === 'running' || this.status === 'paused';
  }

  state(): ContainerState {
    return {
      id: this.id,
      running: this.running,
      state: this.status,
      exitCode: this.running ? null : this.exitCode,
      oomKilled: this.oomKilled,
      labels: { ...this.labels },
    };
  }

  /** The main process's command: the container's own, else the image's. */
  command(): string[] {
    return this.spec.command.length
      ? this.spec.command
      : [...(this.image.config.entrypoint ?? []), ...(this.image.config.cmd ?? [])];
  }

  /** The environment every process starts with: the engine's defaults, the image's, the container's. */
  environment(): Record<string, string> {
    const env: Record<string, string> = { PATH: DEFAULT_PATH, HOSTNAME: this.hostname, HOME: '/root' };
    for (const e of this.image.config.env) {
      const i = e.indexOf('=');
      if (i > 0) env[e.slice(0, i)] = e.slice(i + 1);
    }
    return { ...env, ...this.spec.env };
  }

  workingDir(): string {
    return this.spec.workingDir || this.image.config.workingDir || '/';
  }

  // ProcessHost

  nextPid(): number {
    return ++this.lastPid;
  }

  adopt(p: MemoryProcess): void {
    this.processes.add(p);
    p.whenEnded(() => this.processes.delete(p));
  }

  thawed(): Promise<void> {
    return this.thaw?.promise ?? Promise.resolve();
  }

  findProcess(pid: number): MemoryProcess | undefined {
    return [...this.processes].find((p) => p.pid === pid);
  }

  allocate(p: MemoryProcess, bytes: number): void {
    p.memory += bytes;
    if (this.memoryBytes() <= this.limits.ramMb * 1024 * 1024) return;
    // The kernel's OOM killer takes the biggest process.
    const victim = [...this.processes].sort((a, b) => b.memory - a.memory)[0]!;
    this.oomKilled = true;
    this.events.emit(this, 'oom', { oom: true });
    victim.signal('SIGKILL');
  }

  memoryBytes(): number {
    let n = 0;
    for (const p of this.processes) n += PROCESS_BASE_BYTES + p.memory;
    return n;
  }

  async listen(port: number, onConnection: (socket: Socket) => void, owner: MemoryProcess): Promise<void> {
    if (this.listeners.has(port)) throw new Error(`bind: address already in use (port ${port})`);
    const sockets = new Set<Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A frozen container's kernel still accepts the connection; nothing answers until it thaws.
      void this.thawed().then(() => (owner.running ? onConnection(socket) : socket.destroy()));
    });
    this.listeners.set(port, { server, sockets });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    owner.whenEnded(() => this.closeListener(port));
  }

  private closeListener(port: number): void {
    const l = this.listeners.get(port);
    if (!l) return;
    this.listeners.delete(port);
    l.server.close();
    for (const s of l.sockets) s.destroy();
  }

  /** The host port where the container's `port` is served, when something listens there. */
  hostPort(port: number): number | null {
    const address = this.listeners.get(port)?.server.address();
    return address && typeof address === 'object' ? address.port : null;
  }

  /** A TCP connection to `port` inside the container, as the driver's `connect` gives one. */
  dial(port: number): Promise<Socket> {
    if (!this.running)
      throw new EngineError(
        'conflict',
        `container ${this.id.slice(0, 12)} is not running, so nothing listens on port ${port}`,
      );
    const hostPort = this.hostPort(port);
    if (hostPort === null)
      throw new EngineError('not_found', `nothing answers on port ${port} in the container (ECONNREFUSED)`);
    return new Promise<Socket>((resolve, reject) => {
      const socket = net.createConnection({ host: '127.0.0.1', port: hostPort });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new EngineError('not_found', `nothing answers on port ${port} in the container (${err.code ?? err.message})`),
        ),
      );
    });
  }

  /** One stats sample; a container that does not run has none (the engine sends zeros and a zero time). */
  sample(): ContainerStats {
    const zero = { cpu_percent: 0, net_rx_bytes: 0, net_tx_bytes: 0, block_read_bytes: 0, block_write_bytes: 0 };
    if (!this.running)
      return { ...zero, memory_bytes: 0, memory_limit_bytes: 0, pids: 0, at: '0001-01-01T00:00:00.000Z' };
    return {
      ...zero,
      memory_bytes: this.memoryBytes(),
      memory_limit_bytes: this.limits.ramMb * 1024 * 1024,
      pids: this.processes.size,
      at: new Date().toISOString(),
    };
  }

  /** An output of a process: held while the container is paused, as a frozen process writes nothing. */
  gated(out: Output): Output {
    return {
      write: (chunk) => {
        if (this.thaw) this.frozenWrites.push(() => out.write(chunk));
        else out.write(chunk);
      },
    };
  }

  // Lifecycle

  start(): void {
    this.status = 'running';
    this.oomKilled = false;
    this.events.emit(this, 'started');
    const logOut = this.gated({ write: (c) => this.log.write(Buffer.isBuffer(c) ? c : Buffer.from(c)) });
    const argv = this.command();
    const env = this.environment();
    const main = new MemoryProcess(this, argv, env, this.workingDir(), {
      stdin: emptyInput(),
      stdout: logOut,
      stderr: logOut,
    });
    this.main = main;
    main.whenEnded(() => this.mainEnded(main));
    try {
      const resolved = resolveCommand(this, argv, env, this.workingDir());
      main.run(resolved.program, resolved.argv);
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      // The engine's init (tini) reports the failed exec and exits as a shell would.
      const denied = err.failure === 'permission' || err.failure === 'format';
      logOut.write(
        `[FATAL tini (7)] exec ${argv[0]} failed: ${denied ? 'Permission denied' : 'No such file or directory'}\n`,
      );
      setImmediate(() => main.end(denied ? 126 : 127));
    }
  }

  private mainEnded(main: MemoryProcess): void {
    if (this.main !== main) return;
    this.main = null;
    // The container's end takes every other process with it.
    for (const p of [...this.processes]) p.signal('SIGKILL');
    this.unfreeze();
    this.status = 'exited';
    this.exitCode = main.exitCode ?? 0;
    this.log.endFollowers();
    this.events.emit(this, 'exited', { exitCode: this.exitCode, ...(this.oomKilled ? { oom: true } : {}) });
    for (const w of this.exitWaiters.splice(0)) w(this.exitCode);
  }

  /** SIGTERM to the main process, the grace period, then SIGKILL; a paused container is thawed first. */
  async stop(graceSeconds: number): Promise<void> {
    if (!this.running || !this.main) return;
    if (this.status === 'paused') this.unpause();
    const main = this.main;
    main.signal('SIGTERM');
    const grace = new AbortController();
    await Promise.race([
      main.exited,
      sleep(graceSeconds * 1000, undefined, { signal: grace.signal }).catch(() => undefined),
    ]);
    grace.abort();
    if (main.running) main.signal('SIGKILL');
    await main.exited;
    this.events.emit(this, 'exited');
  }

  /** SIGKILL to everything (a forced removal). */
  kill(): void {
    if (this.status === 'paused') this.unfreeze();
    this.main?.signal('SIGKILL');
  }

  pause(): void {
    this.status = 'paused';
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.thaw = { promise, resolve };
    this.events.emit(this, 'paused');
  }

  unpause(): void {
    this.status = 'running';
    this.unfreeze();
    this.events.emit(this, 'unpaused');
  }

  private unfreeze(): void {
    const thaw = this.thaw;
    this.thaw = null;
    for (const write of this.frozenWrites.splice(0)) write();
    thaw?.resolve();
  }

  /** Resolves with the exit code once the main process has ended (at once when it is not running). */
  wait(): Promise<number> {
    if (!this.running) return Promise.resolve(this.exitCode);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Removal: every listener closes. */
  destroy(): void {
    for (const port of [...this.listeners.keys()]) this.closeListener(port);
    this.log.endFollowers();
  }
}
