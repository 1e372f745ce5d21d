import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { after, before } from 'node:test';
import { DockerEngine } from '../electron/core/engine/docker/docker-engine';
import { tempDataDir } from './core-process';
import { docker as sharedDocker } from './docker';
import { startTestCore, type TestCore } from './test-core';

/**
 * A second, private Docker engine (its own socket, data root and containerd),
 * so a test can stop and start a real engine without disturbing the one the
 * other tests use. Needs root and dockerd.
 */
export class PrivateEngine {
  readonly dir = tempDataDir('boxdesk-dockerd-');
  readonly socketPath = path.join(this.dir, 'docker.sock');
  private child: ChildProcess | null = null;

  /**
   * `dockerdArgs`: more of dockerd's flags (a far engine's test gives its bridge an address no host
   * interface has). `ownPids`: dockerd in a PID (and mount) namespace of its own as well, as in a
   * VM: the process ids it reports name other processes on this host, or none.
   */
  constructor(
    private readonly dockerdArgs: string[] = [],
    private readonly options: { ownPids?: boolean } = {},
  ) {}

  static unavailableReason(): string | null {
    if (process.getuid?.() !== 0) return 'needs root to run a private dockerd';
    const has = (bin: string) => (process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, bin)));
    if (!has('dockerd')) return 'dockerd is not installed';
    return has('unshare') ? null : 'unshare (util-linux) is not installed';
  }

  async start(): Promise<void> {
    const log = fs.openSync(path.join(this.dir, 'dockerd.log'), 'a');
    // Its own network namespace: its bridge and rules never touch the host's docker0.
    this.child = spawn(
      'unshare',
      [
        '--net',
        // --mount-proc: its /proc shows its own namespace (runc reads its processes there); it implies --mount.
        ...(this.options.ownPids ? ['--pid', '--fork', '--mount-proc'] : []),
        'dockerd',
        '--data-root',
        path.join(this.dir, 'data'),
        '--exec-root',
        path.join(this.dir, 'exec'),
        '--pidfile',
        path.join(this.dir, 'pid'),
        '-H',
        `unix://${this.socketPath}`,
        '--iptables=false',
        '--ip6tables=false',
        ...this.dockerdArgs,
      ],
      { stdio: ['ignore', log, log] },
    );
    for (let i = 0; i < 120; i++) {
      if (await this.answers()) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(
      `private dockerd did not start:\n${fs.readFileSync(path.join(this.dir, 'dockerd.log'), 'utf8').slice(-2000)}`,
    );
  }

  /** An Engine-API client of this engine, for a test's own containers beside the core's. */
  client(): Docker {
    return new Docker({ socketPath: this.socketPath });
  }

  /** Copies an image from the shared engine into this one (it starts with none). */
  async loadImageFromShared(image: string): Promise<void> {
    const tar = await sharedDocker.getImage(image).get();
    const res = await new Docker({ socketPath: this.socketPath }).loadImage(tar);
    await new Promise<void>((resolve, reject) => res.on('end', resolve).on('error', reject).resume());
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    // unshare --fork ignores SIGTERM and waits for its child: dockerd itself is told.
    const forked = this.options.ownPids ? this.forkedChild(child.pid!) : null;
    if (forked) process.kill(forked, 'SIGTERM');
    else child.kill('SIGTERM');
    await exited;
    this.child = null;
  }

  /** Stops the engine and removes its data root. */
  async destroy(): Promise<void> {
    await this.stop();
    // dockerd leaves its data root bind-mounted on itself once it has run containers; the
    // mount lives in the host's mount namespace (only the network is private), so undo it.
    const mounts = fs
      .readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((m) => m.startsWith(this.dir + '/'));
    for (const m of mounts.sort((a, b) => b.length - a.length)) spawnSync('umount', ['-l', m]);
    fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  }

  /** The process unshare --fork started (dockerd, by its host PID), or null once it has gone. */
  private forkedChild(pid: number): number | null {
    try {
      const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
      return children[0] ? Number(children[0]) : null;
    } catch {
      return null;
    }
  }

  private async answers(): Promise<boolean> {
    try {
      const res = await new Promise<number>((resolve, reject) => {
        import('node:http').then(({ request }) => {
          const req = request({ socketPath: this.socketPath, path: '/_ping' }, (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        }, reject);
      });
      return res === 200;
    } catch {
      return false;
    }
  }
}

/** A test core with two regions: `local` (this machine's engine) and `far` (the private engine). */
export function startTwoRegionCore(far: PrivateEngine): Promise<TestCore> {
  return startTestCore({
    engines: [
      { name: 'local', engine: new DockerEngine() },
      { name: 'far', engine: new DockerEngine({ socketPath: far.socketPath }) },
    ],
  });
}

/**
 * Before a file's tests (unless `skip`, the reason there is no private engine): a private engine,
 * readied by `prepare`, and a test core on it, both handed to `use`; after them, both go.
 */
export function withPrivateEngineCore(
  skip: string | null,
  use: (engine: PrivateEngine, t: TestCore) => void,
  options: {
    prepare?: (engine: PrivateEngine) => Promise<void>;
    args?: string[];
    dockerdArgs?: string[];
    ownPids?: boolean;
  } = {},
): void {
  let engine: PrivateEngine | undefined;
  let t: TestCore | undefined;
  before(async () => {
    if (skip) return;
    engine = new PrivateEngine(options.dockerdArgs, { ownPids: options.ownPids });
    await engine.start();
    await options.prepare?.(engine);
    t = await startTestCore({ engine: new DockerEngine({ socketPath: engine.socketPath }), args: options.args });
    use(engine, t);
  });
  after(async () => {
    await t?.close();
    await engine?.destroy();
  });
}
