import type { FastifyBaseLogger } from 'fastify';
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { ApiError } from '../../../shared/errors';
import { parseAllowEntry, type ResolvedNetwork } from '../../../shared/schemas/network';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import { KeyedMutex } from '../keyed-mutex';
import { filterTable, needsRules, type AllowedDestination } from './egress-rules';
import { findNetfilterFiles } from './netfilter-files';
import { NetfilterHelper, type PreparedRules } from './netfilter-helper';

/** What the networking of boxes needs to know of a box. */
export interface NetworkedBox {
  id: string;
  project: string;
  name: string;
  network: ResolvedNetwork;
}

export interface BoxNetworkingDeps {
  engine: ContainerEngine;
  instanceId: string;
  log: FastifyBaseLogger;
  /** Where rules files are written for the helper (a folder of the data dir). */
  rulesDir: string;
  /** The running boxes and their containers, whose rules follow the host's addresses. */
  running: () => { box: NetworkedBox; containerId: string }[];
}

export const PROJECT_NETWORK_ROLE = 'project-network';

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

/** The host's own IPv4 addresses (loopback is the box's own). */
function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/** The allow entries as networks, host names resolved now; those that do not resolve are named. */
export async function resolveAllowed(
  allow: string[],
): Promise<{ allowed: AllowedDestination[]; unresolved: string[] }> {
  const allowed: AllowedDestination[] = [];
  const unresolved: string[] = [];
  for (const entry of allow) {
    const target = parseAllowEntry(entry);
    if ('error' in target) continue; // refused when it was given
    if (target.kind === 'cidr') allowed.push({ cidr: `${target.address}/${target.prefix}`, port: target.port });
    else {
      const found = await lookup(target.host, { all: true, family: 4 }).catch(() => []);
      if (!found.length) unresolved.push(entry);
      for (const { address } of found) allowed.push({ cidr: `${address}/32`, port: target.port });
    }
  }
  return { allowed, unresolved };
}

/**
 * Boxes' networks (docs/security.md, "The network boundary"): one engine network per project,
 * where its boxes reach each other by name, and each box's packet filter (its egress policy and
 * the host's addresses) set by the netfilter helper each time its container starts and at each
 * change of its settings.
 */
export class BoxNetworking {
  private helper: NetfilterHelper | { missing: string } | null = null;
  /** The host addresses the running boxes' rules were last made with. */
  private readonly closedHost = new Set<string>();
  /** One make or removal of a project's network at a time: the engine may make two of one name at once. */
  private readonly projects = new KeyedMutex();
  /** Projects whose network this core has made or found (until it removes it). */
  private readonly ensured = new Set<string>();

  constructor(private readonly deps: BoxNetworkingDeps) {}

  networkName(project: string): string {
    return `boxdesk-${this.deps.instanceId}-${project}`;
  }

  /** The engine network of the box's project, for its container's spec. */
  specFor(box: Pick<NetworkedBox, 'project' | 'name'>): { name: string; aliases: string[] } {
    return { name: this.networkName(box.project), aliases: [box.name] };
  }

  /** Makes the project's network unless it is there; a host address that came with it is closed to running boxes. */
  async ensure(project: string): Promise<void> {
    if (this.ensured.has(project)) return;
    await this.projects.run(project, async () => {
      await this.deps.engine.ensureNetwork(this.networkName(project), {
        'boxdesk.instance': this.deps.instanceId,
        'boxdesk.project': project,
        'boxdesk.role': PROJECT_NETWORK_ROLE,
      });
      this.ensured.add(project);
    });
    if ((await this.hostAddresses()).some((a) => !this.closedHost.has(a))) await this.refreshRunning();
  }

  /**
   * Removes project networks no box is on: this core's (a box deleted while the core was down,
   * or a crash between a network's making and its box's), and any core's left for an hour (a core
   * killed for good, its data dir gone).
   */
  async prune(): Promise<void> {
    const role = { 'boxdesk.role': PROJECT_NETWORK_ROLE };
    await this.deps.engine.pruneNetworks({ ...role, 'boxdesk.instance': this.deps.instanceId });
    await this.deps.engine.pruneNetworks(role, 3600);
    this.ensured.clear();
  }

  /**
   * Makes a container on the project's network (`make`), the network made first unless it is
   * there. One removed meanwhile (the engine-up prune of a network no box was on yet) is made again.
   */
  async onNetwork(project: string, make: () => Promise<string>): Promise<string> {
    await this.ensure(project);
    try {
      return await make();
    } catch (err) {
      if (!(err instanceof EngineError && err.kind === 'not_found' && /network/i.test(err.message))) throw err;
      this.ensured.delete(project);
      await this.ensure(project);
      return make();
    }
  }

  /** Waits for what is still being cleaned up (ended helpers being removed). */
  async settle(): Promise<void> {
    if (this.helper && !('missing' in this.helper)) await this.helper.settle();
  }

  /** Removes the project's network (when its last box is gone); one still in use is kept. */
  async removeNetwork(project: string): Promise<void> {
    await this.projects
      .run(project, () => {
        this.ensured.delete(project);
        return this.deps.engine.removeNetwork(this.networkName(project));
      })
      .catch((err: unknown) => this.deps.log.debug({ err, project }, 'project network kept'));
  }

  /**
   * Starts the box's container on its project's network alone (a container made before networks
   * per project moves there now; one just `made` on it is there), then sets its rules. Rules
   * that cannot be set stop it again: a box never runs without them.
   */
  async start(box: NetworkedBox, containerId: string, made = false): Promise<void> {
    if (!made) {
      await this.ensure(box.project);
      await this.deps.engine.moveToNetwork(containerId, this.networkName(box.project), [box.name]);
    }
    // Its helper is made while the box starts; it runs once the box does.
    const prepared = this.deps.engine.packetFilter && needsRules(box.network) ? this.prepare(box, containerId) : null;
    prepared?.catch(() => undefined); // awaited below, or dropped with the start
    try {
      await this.deps.engine.startContainer(containerId);
    } catch (err) {
      void prepared?.then(
        (p) => p.discard(),
        () => undefined,
      );
      throw err;
    }
    if (!prepared) return;
    try {
      await (await prepared).run();
    } catch (err) {
      await this.deps.engine.stopContainer(containerId, 0).catch(() => undefined);
      throw rulesError(err);
    }
  }

  /** Sets the running box's rules anew (a change of its settings, or of the host's addresses). */
  async enforce(box: NetworkedBox, containerId: string): Promise<void> {
    if (!this.deps.engine.packetFilter) return;
    try {
      await (await this.prepare(box, containerId)).run();
    } catch (err) {
      throw rulesError(err);
    }
  }

  /** Checks that settings can be applied now: their host names resolve (400 naming those that do not). */
  async check(network: ResolvedNetwork): Promise<void> {
    if (network.egress !== 'allowlist') return;
    const { unresolved } = await resolveAllowed(network.allow);
    if (unresolved.length)
      throw new ApiError('invalid_body', `network.allow: ${unresolved.join(', ')} did not resolve to an IPv4 address`, {
        errors: unresolved.map((entry) => ({
          path: `body.network.allow.${network.allow.indexOf(entry)}`,
          message: 'does not resolve; give an address or CIDR, or a host this machine can resolve',
        })),
      });
  }

  private netfilter(): NetfilterHelper {
    if (!this.helper) {
      const files = findNetfilterFiles();
      const { engine, instanceId, rulesDir } = this.deps;
      this.helper = 'missing' in files ? files : new NetfilterHelper(engine, instanceId, files, rulesDir);
    }
    if ('missing' in this.helper)
      throw new NetworkRulesError(`the box's network rules cannot be set: ${this.helper.missing}`);
    return this.helper;
  }

  private async prepare(box: NetworkedBox, containerId: string): Promise<PreparedRules> {
    const helper = this.netfilter();
    const { allowed, unresolved } =
      box.network.egress === 'allowlist' ? await resolveAllowed(box.network.allow) : { allowed: [], unresolved: [] };
    if (unresolved.length)
      this.deps.log.warn(
        { box: box.name, project: box.project, unresolved },
        'allow entries that did not resolve stay closed',
      );
    const addresses = await this.hostAddresses();
    for (const a of addresses) this.closedHost.add(a);
    return helper.prepare(containerId, filterTable({ network: box.network, allowed, hostAddresses: addresses }));
  }

  /** Sets the rules of every running box that keeps the host closed anew (the host has a new address). */
  private async refreshRunning(): Promise<void> {
    if (!this.deps.engine.packetFilter) return;
    for (const { box, containerId } of this.deps.running()) {
      if (box.network.host) continue;
      await this.enforce(box, containerId).catch((err: unknown) => {
        this.deps.log.warn({ err, box: box.name, project: box.project }, "could not close the host's new address");
      });
    }
  }

  /** The host's own addresses: its interfaces' and every engine network's gateway (each bridge's, in use or not). */
  private async hostAddresses(): Promise<string[]> {
    const gateways = this.deps.engine.packetFilter ? await this.deps.engine.networkGateways() : [];
    return [...new Set([...interfaceAddresses(), ...gateways])].sort();
  }
}
