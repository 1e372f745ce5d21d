import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import type { ResolvedNetwork } from '../../../shared/schemas/network';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import { findAgentFiles } from '../engine/agent/files';
import { KeyedMutex } from '../keyed-mutex';
import type { EgressLog } from './egress-log';
import { resolveAllowed } from './allow-entries';
import { usesProxy } from './egress-policy';
import type { EgressResolver } from './egress-resolver';
import { enforces, filterTable } from './egress-rules';
import { EgressWatches } from './egress-watch';
import { findNetfilterFiles } from './netfilter-files';
import { HostAddresses } from './host-addresses';
import { NetfilterHelper } from './netfilter-helper';

/** What the networking of boxes needs to know of a box. */
export interface NetworkedBox {
  id: string;
  project: string;
  name: string;
  network: ResolvedNetwork;
  /** The secrets it holds placeholders of (a box with any uses the egress proxy). */
  secrets: string[];
}

/** What the egress proxy does once a box that uses it runs on its network (networks/box-egress.ts). */
export interface EgressHook {
  ready(box: NetworkedBox, containerId: string): Promise<void>;
  /** A project network with this gateway is gone. */
  released(gateway: string): Promise<void>;
}

/** Boxdesk's built static binary, for the netfilter helper's image; null where it is not built. */
export function helperBinary(): { binary: string; digest: string } | null {
  const files = findAgentFiles();
  return 'missing' in files ? null : { binary: files.binary, digest: files.digest };
}

/** The box agent's hold on a box's main process (engine/agent/hub.ts): its rules are set before it runs. */
export interface MainGate {
  hold(boxId: string, on: boolean): boolean;
  held(boxId: string): boolean;
  release(boxId: string): Promise<boolean>;
}

export interface BoxNetworkingDeps {
  engine: ContainerEngine;
  instanceId: string;
  log: FastifyBaseLogger;
  /** Where boxes have the agent; null: none does, and a box's first instant is unfiltered. */
  gate: MainGate | null;
  /** The data dir's folder the helper listens in; null (the engine is not on this machine): an exec per change. */
  socketDir: string | null;
  /** Boxdesk's static binary, for the packet filter's helper image; null: not built. */
  agent: { binary: string; digest: string } | null;
  /** The range project networks are made in (an IPv4 CIDR of /24 or shorter). */
  pool: string;
  /** The running boxes and their containers (a core restarted while one was held gets it released). */
  running: () => { box: NetworkedBox; containerId: string }[];
  /** Where the packet filter's records of boxes' connections go. */
  egress: EgressLog;
  /** The egress proxy's port at each project network's gateway. */
  proxyPort: number;
  /** How allow entries' host names resolve (the --egress-hosts file, then DNS). */
  resolver: EgressResolver;
}

export const PROJECT_NETWORK_ROLE = 'project-network';
/** How long a project's network outlives its last box. */
const NETWORK_LINGER_MS = 30_000;
/** How often a container's create is asked again when its project's network is missing meanwhile. */
const NETWORK_ATTEMPTS = 4;

/** The box's packet filter could not be set (the box is not left running without it). */
export class NetworkRulesError extends EngineError {
  constructor(message: string) {
    super('failed', message);
  }
}

/** A failure to set rules as the box's callers see it; an engine that went away stays that. */
function rulesError(err: unknown): Error {
  if (err instanceof NetworkRulesError || (err instanceof EngineError && err.kind === 'unavailable')) return err;
  return new NetworkRulesError(err instanceof Error ? err.message : String(err));
}

/**
 * Boxes' networks (docs/security.md, "The network boundary"): one engine network per project,
 * made in Boxdesk's own address range, where its boxes reach each other by name; and each box's
 * packet filter (its egress policy, the host's addresses and the range of every other project's
 * network closed), set through the one netfilter helper before the box's main process runs (the
 * agent holds it) and at each change of its settings. The host's addresses are known once per
 * engine-up, and another project's network is in the closed range already: a new project changes
 * nobody's rules.
 */
export class BoxNetworking {
  private helper: NetfilterHelper | { missing: string } | null = null;
  /** One make or removal of a project's network at a time: the engine may make two of one name at once. */
  private readonly projects = new KeyedMutex();
  /** Projects whose network this core has made or found (until it removes it), with its subnet. */
  private readonly ensured = new Map<string, { subnet: string; gateway: string } | null>();
  /** When this core began: the prune of its own networks takes only those made before (by an earlier run). */
  private readonly bornAt = Date.now();
  /** Projects whose last box went: their network's removal, pending. */
  private readonly leaving = new Map<string, NodeJS.Timeout>();
  private readonly host: HostAddresses;
  /** The egress log's watch of each running box, by box id. */
  private readonly watches: EgressWatches;

  private proxyHook: EgressHook | null = null;

  constructor(private readonly deps: BoxNetworkingDeps) {
    this.host = new HostAddresses(deps.engine, deps.pool);
    this.watches = new EgressWatches({
      open: (containerId, pid, onRecord, onEnd) => this.netfilter().watch(containerId, pid, onRecord, onEnd),
      record: (boxId, record) => this.deps.egress.record(boxId, record),
      log: deps.log,
    });
  }

  get pool(): string {
    return this.deps.pool;
  }

  get resolver(): EgressResolver {
    return this.deps.resolver;
  }

  /** The egress proxy, told of each box that uses it once it runs on its network (before its main process does). */
  useEgress(hook: EgressHook): void {
    this.proxyHook = hook;
  }

  networkName(project: string): string {
    return `boxdesk-${this.deps.instanceId}-${project}`;
  }

  /** The engine network of the box's project, for its container's spec. */
  specFor(box: Pick<NetworkedBox, 'project' | 'name'>): { name: string; aliases: string[] } {
    return { name: this.networkName(box.project), aliases: [box.name] };
  }

  /** Makes the project's network (a free /24 of the range) unless it is there; its subnet. */
  async ensure(project: string): Promise<{ subnet: string; gateway: string } | null> {
    clearTimeout(this.leaving.get(project));
    this.leaving.delete(project);
    if (this.ensured.has(project)) return this.ensured.get(project)!;
    return this.projects.run(project, async () => {
      const name = this.networkName(project);
      const labels = {
        'boxdesk.instance': this.deps.instanceId,
        'boxdesk.project': project,
        'boxdesk.role': PROJECT_NETWORK_ROLE,
      };
      await this.deps.engine.ensureNetwork(name, labels, { pool: this.deps.pool });
      const subnet = await this.deps.engine.networkSubnet(name);
      this.ensured.set(project, subnet);
      return subnet;
    });
  }

  /**
   * Removes project networks no box is on: this core's made by an earlier run (a box deleted while
   * the core was down, or a crash between a network's making and its box's), and any core's left
   * for an hour (a core killed for good, its data dir gone). The host's addresses are read anew
   * (the engine came up). Not this run's own: a box's create may have just made its network, its
   * container not on it yet (the Podman lane's creates failed so: "network not found").
   */
  async prune(): Promise<void> {
    const role = { 'boxdesk.role': PROJECT_NETWORK_ROLE };
    const age = Math.max(1, Math.ceil((Date.now() - this.bornAt) / 1000));
    await this.deps.engine.pruneNetworks({ ...role, 'boxdesk.instance': this.deps.instanceId }, age);
    await this.deps.engine.pruneNetworks(role, 3600);
    this.ensured.clear();
    this.host.forget();
    if (this.deps.engine.packetFilter) {
      const helper = this.netfilterOrNull();
      await helper?.removeEnded();
    }
  }

  /**
   * Boxes a core stopped while they were held (started, their rules not set yet): their rules
   * are set and their main process let go now.
   */
  async resume(): Promise<void> {
    const { gate } = this.deps;
    if (!gate) return;
    for (const { box, containerId } of this.deps.running()) {
      if (!this.watches.has(box.id) && !gate.held(box.id))
        await this.inspect(containerId)
          .then((state) => this.watches.start(box, state))
          .catch(() => undefined);
      if (!gate.held(box.id)) continue;
      await this.setRules(box, containerId)
        .then(() => gate.release(box.id))
        .catch((err: unknown) => this.deps.log.warn({ err, box: box.name }, 'a held box could not be let go'));
    }
  }

  /**
   * Makes a container on the project's network (`make`), the network made first unless it is
   * there. One the engine says is missing meanwhile is made again and the container asked for
   * again, a few times: removed by a prune, or missing for Podman 4.3's container create while its
   * network inspect still finds it (the Podman lane met that; why, on Podman's side, is not known).
   */
  async onNetwork(project: string, make: () => Promise<string>): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      await this.ensure(project);
      try {
        return await make();
      } catch (err) {
        const missing = err instanceof EngineError && err.kind === 'not_found' && /network/i.test(err.message);
        if (!missing || attempt >= NETWORK_ATTEMPTS) throw err;
        this.ensured.delete(project);
        await new Promise((r) => setTimeout(r, 100 * attempt));
        // Podman can go on listing a network its container create does not find: from the second
        // try on, the network is made anew (a removal refused for boxes on it leaves it as it is).
        if (attempt >= 2) await this.deps.engine.removeNetwork(this.networkName(project)).catch(() => undefined);
      }
    }
  }

  /** Stops the packet filter's helper (the core stops; boxes keep their rules) and removes the networks that were to go. */
  async stop(): Promise<void> {
    const leaving = [...this.leaving.entries()];
    this.leaving.clear();
    for (const [, timer] of leaving) clearTimeout(timer);
    this.watches.closeAll();
    await Promise.all(leaving.map(([project]) => this.dropNetwork(project)));
    if (this.helper && !('missing' in this.helper)) await this.helper.stop();
  }

  /**
   * The project's last box is gone: its network goes after NETWORK_LINGER_MS unless a box of the
   * project comes meanwhile (a delete then a create, as scripts and tests do, keeps it), or when
   * the core stops.
   */
  removeNetwork(project: string): void {
    clearTimeout(this.leaving.get(project));
    const timer = setTimeout(() => {
      this.leaving.delete(project);
      void this.dropNetwork(project);
    }, NETWORK_LINGER_MS);
    timer.unref();
    this.leaving.set(project, timer);
  }

  /** Removes the project's network; one in use (a box came meanwhile) is kept. */
  private dropNetwork(project: string): Promise<void> {
    return this.projects
      .run(project, async () => {
        const own = this.ensured.get(project);
        this.ensured.delete(project);
        await this.deps.engine.removeNetwork(this.networkName(project));
        // Its gateway's address may go to another core's network next: the proxy lets it go.
        if (own) await this.proxyHook?.released(own.gateway);
      })
      .catch((err: unknown) => this.deps.log.debug({ err, project }, 'project network kept'));
  }

  /**
   * Starts the box's container on its project's network alone (a container made before networks
   * per project moves there now; one just `made` on it is there) with its rules set before its
   * main process runs: the agent holds it until they are. Without the agent the rules come right
   * after the start. Rules that cannot be set stop it again: a box never runs without them.
   */
  async start(box: NetworkedBox, containerId: string, made = false): Promise<void> {
    if (!made) {
      await this.ensure(box.project);
      await this.deps.engine.moveToNetwork(containerId, this.networkName(box.project), [box.name]);
    }
    const needs = this.filtered(box);
    const held = this.deps.gate?.hold(box.id, needs) === true && needs;
    // Names resolved and the table made while the container starts.
    const rules = needs ? this.rulesFor(box) : null;
    rules?.catch(() => undefined); // awaited below, or dropped with the start
    await this.deps.engine.startContainer(containerId);
    if (!rules) return void (await this.proxyHook?.ready(box, containerId));
    try {
      // The egress log listens in the box's namespace as its rules are loaded, before it is let go.
      const state = await this.inspect(containerId);
      await Promise.all([this.netfilter().apply(state.id, state.pid, await rules), this.watches.start(box, state)]);
      await this.proxyHook?.ready(box, containerId);
      if (held && !(await this.deps.gate!.release(box.id)))
        throw new NetworkRulesError("the box's agent did not connect to be let go after its rules were set");
    } catch (err) {
      // A main process that exited at once (without the agent) has no namespace to filter and
      // nothing running to hold to rules: its exit is the crash-loop handling's.
      const state = await this.deps.engine.inspectContainer(containerId).catch(() => null);
      if (state && !state.running) return;
      await this.deps.engine.stopContainer(containerId, 0).catch(() => undefined);
      throw rulesError(err);
    }
  }

  /**
   * A warm-pool container claimed by the box (boxes/pool/), on `none` or the engine's default
   * network. Its rules are set first, then it moves to the project's network alone; `frozen` (still
   * paused, so nothing in it runs until both are done): the two at once.
   */
  async claim(box: NetworkedBox, containerId: string, frozen = false): Promise<void> {
    await this.ensure(box.project);
    const move = () => this.deps.engine.moveToNetwork(containerId, this.networkName(box.project), [box.name]);
    const moved = frozen ? move() : null;
    moved?.catch(() => undefined); // awaited below
    if (this.filtered(box)) {
      const state = await this.inspect(containerId).catch((err: unknown) => Promise.reject(rulesError(err)));
      await Promise.all([this.setRules(box, containerId), this.watches.start(box, state)]);
    }
    await (moved ?? move());
    await this.proxyHook?.ready(box, containerId);
  }

  /** Whether the box gets rules: every box (for its egress log), unless it closes nothing and there is no packet filter. */
  private filtered(box: NetworkedBox): boolean {
    return this.deps.engine.packetFilter && (enforces(box.network) || this.netfilterOrNull() !== null);
  }

  /** The box is gone: its egress log too. */
  forget(boxId: string): void {
    this.watches.close(boxId);
    this.deps.egress.forget(boxId);
  }

  /** Sets the running box's rules anew (a change of its settings): new connections meet them at once. */
  async enforce(box: NetworkedBox, containerId: string): Promise<void> {
    if (this.deps.engine.packetFilter) await this.setRules(box, containerId);
    await this.proxyHook?.ready(box, containerId);
  }

  /** Checks that settings can be applied now: their host names resolve (400 naming those that do not). */
  async check(network: ResolvedNetwork): Promise<void> {
    if (network.egress !== 'allowlist') return;
    const { unresolved } = await resolveAllowed(network.allow, this.deps.resolver);
    if (unresolved.length)
      throw new ApiError('invalid_body', `network.allow: ${unresolved.join(', ')} did not resolve to an IPv4 address`, {
        errors: unresolved.map((entry) => ({
          path: `body.network.allow.${network.allow.indexOf(entry)}`,
          message: 'does not resolve; give an address or CIDR, or a host this machine can resolve',
        })),
      });
  }

  private async setRules(box: NetworkedBox, containerId: string): Promise<void> {
    try {
      await this.apply(containerId, await this.rulesFor(box));
    } catch (err) {
      throw rulesError(err);
    }
  }

  private netfilterOrNull(): NetfilterHelper | null {
    try {
      return this.netfilter();
    } catch {
      return null;
    }
  }

  private netfilter(): NetfilterHelper {
    if (!this.helper) {
      const files = findNetfilterFiles();
      const { engine, instanceId, agent } = this.deps;
      this.helper =
        'missing' in files
          ? files
          : !agent
            ? { missing: "Boxdesk's helper binary is not built (npm run build:agent needs Go)" }
            : new NetfilterHelper(engine, instanceId, { iptables: files, agent }, this.deps.socketDir);
    }
    if ('missing' in this.helper)
      throw new NetworkRulesError(`the box's network rules cannot be set: ${this.helper.missing}`);
    return this.helper;
  }

  /** Loads the table into the running container's network namespace (found by its main process). */
  private async apply(containerId: string, rules: string): Promise<void> {
    const helper = this.netfilter();
    const state = await this.inspect(containerId);
    await helper.apply(state.id, state.pid, rules);
  }

  /** The running container's id and main process. */
  private async inspect(containerId: string): Promise<{ id: string; pid: number }> {
    const state = await this.deps.engine.inspectContainer(containerId);
    if (!state?.running || !state.pid)
      throw new NetworkRulesError("the box's network rules could not be set: its container is not running");
    return { id: state.id, pid: state.pid };
  }

  private async rulesFor(box: NetworkedBox): Promise<string> {
    const { allowed, unresolved } =
      box.network.egress === 'allowlist'
        ? await resolveAllowed(box.network.allow, this.deps.resolver)
        : { allowed: [], unresolved: [] };
    if (unresolved.length)
      this.deps.log.warn(
        { box: box.name, project: box.project, unresolved },
        'allow entries that did not resolve stay closed',
      );
    const [own, hostAddresses] = await Promise.all([this.ensure(box.project), this.hostAddresses()]);
    const proxyPort = usesProxy(box) ? this.deps.proxyPort : null;
    const resolverOnGateway = this.deps.engine.resolverOnGateway === true;
    return filterTable({
      ...{ network: box.network, allowed, hostAddresses, pool: this.deps.pool, own },
      ...{ proxyPort, resolverOnGateway },
    });
  }

  /** The host's own addresses (host-addresses.ts). */
  hostAddresses(): Promise<string[]> {
    return this.host.get();
  }
}
