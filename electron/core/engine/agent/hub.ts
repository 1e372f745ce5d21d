import type { FastifyBaseLogger } from 'fastify';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { call } from './client';

/** The socket's name in a box's directory (the agent dials /.boxdesk/run/core.sock). */
const SOCKET = 'core.sock';
/** Present as the box starts: its agent holds the main process until the core's POST /v1/go. */
const HOLD = 'hold';

/** One box's line: the socket its agent dials in on, and the connections it has opened and not yet used. */
interface Line {
  server: net.Server;
  idle: net.Socket[];
  /** Connections open now, idle or in use: while any is, the agent is there and will dial another. */
  all: Set<net.Socket>;
  waiters: ((socket: net.Socket | null) => void)[];
  /** Until then an agent that is not connected yet is waited for (its box just started, or the core did). */
  expectedUntil: number;
}

/** How long a starting agent is waited for: it dials at once, then at most every 2 s. */
const AGENT_DIALS_WITHIN_MS = 3_000;

/**
 * The core's side of the box agents' sockets. Each box has a directory of its own under
 * `<data dir>/agents/<box id>/`, mounted into it at /.boxdesk/run; the core listens on a socket
 * there and the agent connects out to it, keeping one connection ready. The core never connects to
 * a path in a directory a box can write (a process in the box could have put a link there), and a
 * box sees only its own directory.
 */
export class AgentHub {
  private readonly lines = new Map<string, Line>();

  constructor(
    private readonly root: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Lines for the boxes that already have a directory (made before a restart): their agents dial back in. */
  async start(): Promise<void> {
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.root, 0o700);
    for (const boxId of fs.readdirSync(this.root)) await this.open(boxId).catch(() => undefined);
  }

  /** The box's directory on the host (made by `open`), mounted read-only in the box at /.boxdesk/run. */
  dirOf(boxId: string): string {
    return path.join(this.root, boxId);
  }

  /** The box's directory on the host, listened on (once): what its container mounts at /.boxdesk/run. */
  async open(boxId: string): Promise<string> {
    const dir = path.join(this.root, boxId);
    if (this.lines.has(boxId)) return dir;
    // World-traversable inside the core's own 0700 directory: an agent running as a user other than root can dial in.
    fs.mkdirSync(dir, { recursive: true, mode: 0o711 });
    const socketPath = path.join(dir, SOCKET);
    fs.rmSync(socketPath, { force: true });
    const line: Line = {
      server: net.createServer({ highWaterMark: 1024 * 1024 }),
      idle: [],
      all: new Set(),
      waiters: [],
      expectedUntil: Date.now() + AGENT_DIALS_WITHIN_MS,
    };
    line.server.on('connection', (socket) => this.arrived(line, socket));
    this.lines.set(boxId, line);
    await new Promise<void>((resolve, reject) => {
      line.server.once('error', reject);
      line.server.listen(socketPath, () => resolve());
    }).catch((err: Error) => {
      this.lines.delete(boxId);
      throw err;
    });
    fs.chmodSync(socketPath, 0o666);
    line.server.on('error', (err) => this.log.warn({ err, boxId }, 'box agent socket failed'));
    return dir;
  }

  /**
   * A connection to the box's agent, for one request: one ready now, else (while the agent is
   * connected) the next it opens, else null (no agent: the caller uses the engine).
   */
  take(boxId: string, waitMs = 2_000): Promise<net.Socket | null> {
    const line = this.lines.get(boxId);
    if (!line) return Promise.resolve(null);
    const ready = line.idle.shift();
    if (ready) return Promise.resolve(ready);
    const expected = line.expectedUntil - Date.now();
    if (line.all.size === 0 && expected <= 0) return Promise.resolve(null);
    waitMs = line.all.size === 0 ? Math.min(waitMs, expected) : waitMs;
    return new Promise((resolve) => {
      const waiter = (socket: net.Socket | null) => {
        clearTimeout(timer);
        resolve(socket);
      };
      const timer = setTimeout(() => {
        line.waiters.splice(line.waiters.indexOf(waiter), 1);
        resolve(null);
      }, waitMs);
      line.waiters.push(waiter);
    });
  }

  /** The box's container just started: its agent is on its way. */
  expect(boxId: string): void {
    const line = this.lines.get(boxId);
    if (line) line.expectedUntil = Date.now() + AGENT_DIALS_WITHIN_MS;
  }

  /** Whether the box's agent is connected now. */
  connected(boxId: string): boolean {
    return (this.lines.get(boxId)?.all.size ?? 0) > 0;
  }

  /**
   * Whether the agent holds the box's main process at its container's next start, until
   * `release` (the box's packet filter is set first): a file in the box's directory the agent
   * looks for as it starts (docs/protocol.md). False: the box has no agent line (no agent).
   */
  hold(boxId: string, on: boolean): boolean {
    if (!this.lines.has(boxId)) return false;
    const file = path.join(this.root, boxId, HOLD);
    if (on) fs.writeFileSync(file, '', { mode: 0o644 });
    else fs.rmSync(file, { force: true });
    return true;
  }

  /** Whether the box's main process is (still) held: its container started with the hold file. */
  held(boxId: string): boolean {
    return fs.existsSync(path.join(this.root, boxId, HOLD));
  }

  /** Lets the held main process run (POST /v1/go); false when the box's agent did not dial in. */
  async release(boxId: string): Promise<boolean> {
    const socket = await this.take(boxId, AGENT_DIALS_WITHIN_MS);
    if (!socket) return false;
    await call(socket, 'POST', '/v1/go', undefined, 5_000);
    this.hold(boxId, false);
    return true;
  }

  /** Stops listening for the box and removes its directory (its container is gone). */
  async close(boxId: string): Promise<void> {
    const line = this.lines.get(boxId);
    this.lines.delete(boxId);
    if (line) await this.shut(line);
    fs.rmSync(path.join(this.root, boxId), { recursive: true, force: true });
  }

  /** Stops listening for every box (the core stops); the directories stay for the next start. */
  async stop(): Promise<void> {
    const lines = [...this.lines.values()];
    this.lines.clear();
    await Promise.all(lines.map((line) => this.shut(line)));
  }

  private async shut(line: Line): Promise<void> {
    for (const socket of line.all) socket.destroy();
    for (const waiter of line.waiters.splice(0)) waiter(null);
    await new Promise<void>((resolve) => line.server.close(() => resolve()));
  }

  private arrived(line: Line, socket: net.Socket): void {
    line.all.add(socket);
    socket.once('close', () => {
      line.all.delete(socket);
      const at = line.idle.indexOf(socket);
      if (at >= 0) line.idle.splice(at, 1);
    });
    socket.on('error', () => undefined);
    const waiter = line.waiters.shift();
    if (waiter) waiter(socket);
    else line.idle.push(socket);
  }
}
