import type { FastifyBaseLogger } from 'fastify';
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import { ApiError } from '../../../shared/errors';
import { parseAllowEntry, type ResolvedNetwork } from '../../../shared/schemas/network';
import { EngineError, type ContainerEngine } from '../engine/container-engine';
import { KeyedMutex } from '../keyed-mutex';
import { filterTable, needsRules, type AllowedDestination } from './egress-rules';
import { findNetfilterFiles } from './netfilter-files';
import { NetfilterHelper } from './netfilter-helper';

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

/** The host's own IPv4 addresses, its bridges' gateways among them (loopback is the box's own). */
function hostAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address)
    .sort();
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
  private readonly closedHost = new Set(hostAddresses());
  /** One make or removal of a project's network at a time: the engine may make two of one name at once. */
  private readonly projects = new KeyedMutex();

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
    await this.projects.run(project, () =>
      this.deps.engine.ensureNetwork(this.networkName(project), {
        'boxdesk.instance': this.deps.instanceId,
        'boxdesk.project': project,
        'boxdesk.role': PROJECT_NETWORK_ROLE,
      }),
    );
    if (hostAddresses().some((a) => !this.closedHost.has(a))) await this.refreshRunning();
  }

  /** Removes the project's network (when its last box is gone); one still in use is kept. */
  async removeNetwork(project: string): Promise<void> {
    await this.projects
      .run(project, () => this.deps.engine.removeNetwork(this.networkName(project)))
      .catch((err: unknown) => this.deps.log.debug({ err, project }, 'project network kept'));
  }

  /**
   * Starts the box's container on its project's network alone (a container made before networks
   * per project moves there now), then sets its rules. Rules that cannot be set stop it again:
   * a box never runs without them.
   */
  async start(box: NetworkedBox, containerId: string): Promise<void> {
    await this.ensure(box.project);
    await this.deps.engine.moveToNetwork(containerId, this.networkName(box.project), [box.name]);
    await this.deps.engine.startContainer(containerId);
    await this.enforce(box, containerId, true);
  }

  /** Sets the running box's rules (`fresh`: it has just started, with none yet). A failure stops the box. */
  async enforce(box: NetworkedBox, containerId: string, fresh = false): Promise<void> {
    if (!this.deps.engine.packetFilter || (fresh && !needsRules(box.network))) return;
    try {
      await this.apply(box, containerId);
    } catch (err) {
      if (fresh) await this.deps.engine.stopContainer(containerId, 0).catch(() => undefined);
      if (err instanceof EngineError && err.kind === 'unavailable') throw err;
      throw new NetworkRulesError(err instanceof Error ? err.message : String(err));
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
      this.helper = 'missing' in files ? files : new NetfilterHelper(this.deps.engine, this.deps.instanceId, files);
    }
    if ('missing' in this.helper)
      throw new NetworkRulesError(`the box's network rules cannot be set: ${this.helper.missing}`);
    return this.helper;
  }

  private async apply(box: NetworkedBox, containerId: string): Promise<void> {
    const helper = this.netfilter();
    const { allowed, unresolved } =
      box.network.egress === 'allowlist' ? await resolveAllowed(box.network.allow) : { allowed: [], unresolved: [] };
    if (unresolved.length)
      this.deps.log.warn(
        { box: box.name, project: box.project, unresolved },
        'allow entries that did not resolve stay closed',
      );
    const addresses = hostAddresses();
    for (const a of addresses) this.closedHost.add(a);
    await helper.apply(containerId, filterTable({ network: box.network, allowed, hostAddresses: addresses }));
  }

  /** Sets the rules of every running box that keeps the host closed anew (the host has a new address). */
  private async refreshRunning(): Promise<void> {
    if (!this.deps.engine.packetFilter) return;
    for (const { box, containerId } of this.deps.running()) {
      if (box.network.host) continue;
      await this.apply(box, containerId).catch((err: unknown) => {
        this.deps.log.warn({ err, box: box.name, project: box.project }, "could not close the host's new address");
      });
    }
    for (const a of hostAddresses()) this.closedHost.add(a);
  }
}
