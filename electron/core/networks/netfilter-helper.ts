import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { EngineError, type ContainerEngine, type ContainerSpec } from '../engine/container-engine';
import { helperLabels, helperSpec } from '../engine/helper-containers';
import { readText } from '../engine/log-tail';
import type { EgressRecordInput } from './egress-log';
import { openEgressWatch, type EgressWatch } from './egress-watch';
import type { NetfilterFiles } from './netfilter-files';
import { tarOf } from './netfilter-image';
import { applyByJoining, removeJoinLeftovers, seenOnThisHost } from './netfilter-join';

export const NETFILTER_ROLE = 'netfilter-helper';

/** Not `boxdesk.instance`: images with that label that no box names are collected at start. */
const IMAGE_LABELS = { role: 'boxdesk.role', digest: 'boxdesk.netfilter' };
/** Where Boxdesk's static helper binary (agent/) is in the image. */
const AGENT_IN_IMAGE = '/boxdesk-agent';
/** Where the core's directory for the helper's socket is bound in the helper. */
const SOCKET_DIR_IN_HELPER = '/run/boxdesk';
const SOCKET = 'netfilter.sock';
/** Longest Unix socket path the kernel takes (sun_path, with its NUL). */
const MAX_SOCKET_PATH = 107;
const READY_WAIT_MS = 10_000;

/** What the helper's image is made of: this machine's iptables, and Boxdesk's own binary for entering namespaces. */
export interface NetfilterImage {
  iptables: NetfilterFiles;
  /** The static boxdesk-agent binary (its `netfilter` command) and what names its build. */
  agent: { binary: string; digest: string };
}

/**
 * The packet filter's helper (docs/security.md): ONE long-lived container per core, made from
 * Debian's iptables and Boxdesk's static binary, in the host's PID namespace with NET_ADMIN,
 * SYS_ADMIN and SYS_PTRACE and no network of its own. Its main process (`boxdesk-agent netfilter
 * serve`) listens on a socket in a directory of the core's data dir bound into it; each change of
 * a box's rules is one request there (an exec in it where the engine is not on this machine): it
 * enters the box's network namespace by the box's main process (checked to be that container's)
 * and loads the filter table with iptables-restore. A box whose process this host does not see
 * (its engine in a VM, elsewhere, or in a PID namespace of its own) gets its table from a helper
 * made for the change on its own engine, in its network namespace with NET_ADMIN alone
 * (netfilter-join.ts). The box itself never has NET_ADMIN, so it cannot undo the rules.
 */
export class NetfilterHelper {
  private imageId: Promise<string> | null = null;
  private container: Promise<string> | null = null;
  /** This core's join helpers an earlier run left are removed once, at the first engine-up. */
  private sweptJoins = false;

  /** The core's directory the helper listens in (bound into it); null: an exec per change instead. */
  private readonly socketDir: string | null;

  constructor(
    private readonly engine: ContainerEngine,
    private readonly instanceId: string,
    private readonly files: NetfilterImage,
    /** A directory of the data dir, where the engine runs on this machine; else null. */
    socketDir: string | null,
  ) {
    const fits = socketDir !== null && path.join(socketDir, SOCKET).length <= MAX_SOCKET_PATH;
    this.socketDir = fits ? socketDir : null;
  }

  private get digest(): string {
    return `${this.files.iptables.digest}-${this.files.agent.digest.slice(0, 16)}`;
  }

  /** The helper image for these files, imported once (no registry, no base image); its id. */
  image(): Promise<string> {
    this.imageId ??= this.importImage().catch((err: unknown) => {
      this.imageId = null;
      throw err;
    });
    return this.imageId;
  }

  private async importImage(): Promise<string> {
    const mine = { [IMAGE_LABELS.role]: NETFILTER_ROLE };
    const existing = await this.engine.listImages(mine);
    const current = existing.find((i) => i.labels[IMAGE_LABELS.digest] === this.digest);
    // Another core's helper may use an older image: only the removal of unused ones succeeds.
    for (const old of existing) if (old !== current) await this.engine.removeImage(old.id).catch(() => undefined);
    if (current) return current.id;
    const agent = { path: AGENT_IN_IMAGE, data: fs.readFileSync(this.files.agent.binary), mode: 0o755 };
    return this.engine.importImage(tarOf([...this.files.iptables.files, agent]), {
      labels: { ...mine, [IMAGE_LABELS.digest]: this.digest },
    });
  }

  /** The running helper container, made (and a leftover of an earlier run removed) once. */
  private running(): Promise<string> {
    this.container ??= this.startHelper().catch((err: unknown) => {
      // The image too is looked for again: another core of another build may have removed it meanwhile.
      this.container = null;
      this.imageId = null;
      throw err;
    });
    return this.container;
  }

  private async startHelper(): Promise<string> {
    await this.removeLeftovers();
    if (this.socketDir) {
      fs.mkdirSync(this.socketDir, { recursive: true, mode: 0o700 });
      fs.rmSync(path.join(this.socketDir, SOCKET), { force: true });
    }
    const id = await this.engine.createContainer(this.spec(await this.image()));
    try {
      await this.engine.startContainer(id);
      if (this.socketDir) await this.listening(id, path.join(this.socketDir, SOCKET));
    } catch (err) {
      await this.engine.removeContainer(id).catch(() => undefined);
      throw err;
    }
    return id;
  }

  /** Waits until the helper listens on its socket (it makes it as it starts). */
  private async listening(id: string, socket: string): Promise<void> {
    const deadline = Date.now() + READY_WAIT_MS;
    while (!fs.existsSync(socket)) {
      const state = await this.engine.inspectContainer(id);
      if (!state?.running || Date.now() > deadline) {
        const output = state ? (await readText(await this.engine.logs(id, { follow: false }))).trim() : '';
        throw new EngineError('failed', `the packet filter's helper did not start${output ? `: ${output}` : ''}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /**
   * Replaces the filter table of the network namespace of container `containerId`, whose main
   * process is `pid` on the host, with `rules` (iptables-restore's format). A helper that went
   * away (a docker rm, the engine's restart) is made again once.
   */
  async apply(containerId: string, pid: number, rules: string): Promise<void> {
    if (!seenOnThisHost(containerId, pid)) return this.applyJoined(containerId, rules);
    for (let attempt = 0; ; attempt++) {
      let helper: string | null = null;
      try {
        // Inside the try: making the helper fails not_found when its image went meanwhile (another
        // core's build removed it as unused), and running() then looks for the image again.
        helper = await this.running();
        const { code, output } = this.socketDir
          ? await this.ask(path.join(this.socketDir, SOCKET), containerId, pid, rules)
          : await this.exec(helper, containerId, pid, rules);
        if (code === 0) return;
        throw new EngineError(
          'failed',
          `the box's network rules could not be set (${output.trim() || `exit code ${code}`})`,
        );
      } catch (err) {
        const gone =
          (err instanceof EngineError && (err.kind === 'not_found' || err.kind === 'conflict')) ||
          ['ENOENT', 'ECONNREFUSED'].includes((err as NodeJS.ErrnoException).code ?? '');
        if (!gone) throw err;
        // The helper's own absence is no 404 of the box the caller asked about.
        if (attempt >= 4)
          throw new EngineError('failed', `the packet filter's helper could not run: ${(err as Error).message}`);
        // Made again only when it is not running any more (a docker rm, the engine's restart): a
        // refusal from a running helper is passing (a busy machine), and making it again would take
        // the helper away from the requests other boxes have in flight.
        if (helper && (await this.engine.inspectContainer(helper).catch(() => null))?.running) {
          await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
          continue;
        }
        if (this.container) this.container = null;
      }
    }
  }

  /**
   * A box whose engine is not in this host's PID namespace (a VM's, a remote one's, one in a PID
   * namespace of its own): its process id means nothing here, so a helper joins its network
   * namespace through its own engine (netfilter-join.ts), the image copied there the first time.
   */
  private async applyJoined(containerId: string, rules: string): Promise<void> {
    const { binary } = this.files.iptables;
    for (let attempt = 0; ; attempt++) {
      const image = await this.image();
      try {
        const { code, output } = await applyByJoining(
          this.engine,
          { image, binary, instanceId: this.instanceId },
          containerId,
          rules,
        );
        if (code === 0) return;
        throw new EngineError(
          'failed',
          `the box's network rules could not be set (${output.trim() || `exit code ${code}`})`,
        );
      } catch (err) {
        // The image removed meanwhile (another core's build replaced it): imported again, once.
        const gone = err instanceof EngineError && err.kind === 'not_found' && err.message.includes(image);
        if (!gone || attempt > 0) throw err;
        this.imageId = null;
      }
    }
  }

  /**
   * Watches the box's network namespace for the egress log (egress-watch.ts): resolves once the
   * helper listens there. Null where the helper has no socket (an engine elsewhere): no log.
   */
  async watch(
    containerId: string,
    pid: number,
    onRecord: (record: EgressRecordInput) => void,
    onEnd: () => void,
  ): Promise<EgressWatch | null> {
    if (!this.socketDir || !seenOnThisHost(containerId, pid)) return null;
    await this.running();
    return openEgressWatch(path.join(this.socketDir, SOCKET), containerId, pid, onRecord, onEnd);
  }

  /** One request on the helper's socket: a line {pid, container}, the rules, then its answer line. */
  private ask(
    socket: string,
    containerId: string,
    pid: number,
    rules: string,
  ): Promise<{ code: number; output: string }> {
    return new Promise((resolve, reject) => {
      const conn = net.createConnection(socket);
      const parts: Buffer[] = [];
      conn.on('data', (d: Buffer) => parts.push(d));
      conn.on('error', reject);
      conn.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(parts).toString('utf8')) as { code: number; output: string });
        } catch {
          reject(new EngineError('failed', "the packet filter's helper gave no answer"));
        }
      });
      conn.end(`${JSON.stringify({ pid, container: containerId })}\n${rules}`);
    });
  }

  /** The same through an exec in the helper, where the engine cannot bind the core's directory into it. */
  private async exec(
    helper: string,
    containerId: string,
    pid: number,
    rules: string,
  ): Promise<{ code: number; output: string }> {
    const { engine } = this;
    const command = [AGENT_IN_IMAGE, 'netfilter', 'apply', String(pid), containerId, '--'];
    const execId = await engine.createExec(helper, {
      command: [...command, this.files.iptables.binary, 'iptables-restore'],
      env: {},
      tty: false,
      stdin: true,
    });
    const streams = await engine.startExec(execId, { tty: false, stdin: true });
    streams.stdin!.end(rules);
    const [stdout, stderr] = await Promise.all([readText(streams.stdout), readText(streams.stderr)]);
    const { exitCode } = await engine.inspectExec(execId);
    return { code: exitCode ?? 1, output: `${stdout}${stderr}` };
  }

  private spec(image: string): ContainerSpec {
    return helperSpec({
      name: `boxdesk-netfilter-${this.instanceId}`,
      image,
      command: [
        // With the socket, the core's process id too: a helper whose core is gone (killed for good) ends.
        ...[AGENT_IN_IMAGE, 'netfilter', 'serve'],
        ...(this.socketDir ? [SOCKET_DIR_IN_HELPER, String(process.pid)] : ['/tmp']),
        '--',
        ...[this.files.iptables.binary, 'iptables-restore'],
      ],
      hostname: 'boxdesk-netfilter',
      labels: helperLabels(this.instanceId, NETFILTER_ROLE),
      // Threads count: its own (a handful: reads go through Go's poller), and each rules change's child while it runs.
      limits: { cpus: 1, ramMb: 64, pidsLimit: 64 },
      helper: {
        // NET_ADMIN for the rules; SYS_ADMIN to enter another namespace (setns); SYS_PTRACE to open
        // the namespace of a box process running as another user. AppArmor's profile forbids both.
        capAdd: ['NET_ADMIN', 'SYS_ADMIN', 'SYS_PTRACE'],
        devices: [],
        binds: this.socketDir ? [{ hostPath: this.socketDir, path: SOCKET_DIR_IN_HELPER, readOnly: false }] : [],
        noAppArmor: true,
        pidHost: true,
      },
    });
  }

  /**
   * Any core's helpers that ended (their core was killed for good): nothing runs in them. And,
   * once, this core's join helpers an earlier run of it left.
   */
  async removeEnded(): Promise<void> {
    if (!this.sweptJoins) {
      this.sweptJoins = true;
      await removeJoinLeftovers(this.engine, this.instanceId);
    }
    // Exited or dead only: a helper another core has just created is not running yet either.
    for (const c of await this.engine.listContainers({ 'boxdesk.role': NETFILTER_ROLE }))
      if (c.state === 'exited' || c.state === 'dead') await this.engine.removeContainer(c.id).catch(() => undefined);
  }

  /** This core's helpers an earlier run left (a kill -9). */
  private async removeLeftovers(): Promise<void> {
    const mine = { 'boxdesk.instance': this.instanceId, 'boxdesk.role': NETFILTER_ROLE };
    for (const c of await this.engine.listContainers(mine))
      await this.engine.removeContainer(c.id).catch(() => undefined);
  }

  /** Stops and removes the helper (the core stops); boxes keep their rules. */
  async stop(): Promise<void> {
    const made = this.container;
    this.container = null;
    const id = await made?.catch(() => null);
    if (!id) return;
    await this.engine.stopContainer(id, 0).catch(() => undefined);
    await this.engine.removeContainer(id).catch(() => undefined);
  }
}
