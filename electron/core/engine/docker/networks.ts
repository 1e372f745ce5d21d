import type Docker from 'dockerode';
import { createConnection, type Socket } from 'node:net';
import { AGENT_BINARY_PATH, EngineError, type BoxSocket } from '../container-engine';
import { intToIpv4, ipv4ToInt } from '../ipv4';
import { call, labelFilter, orNull, retriedWhile, toEngineError, VANISHED_INTERFACE } from './errors';
import { bridgeIsLocal, bridgeName, relayConnect } from './relay';

export async function ensureNetwork(
  docker: Docker,
  name: string,
  labels: Record<string, string>,
  options: { pool?: string } = {},
): Promise<string> {
  const existing = await orNull(() => docker.getNetwork(name).inspect());
  if (existing) return (existing as { Id: string }).Id;
  const subnets = options.pool ? await freeSubnets(docker, options.pool) : [undefined];
  for (const subnet of subnets) {
    try {
      const network = await vanishingInterfaceRetried(() =>
        docker.createNetwork({
          Name: name,
          Labels: labels,
          CheckDuplicate: true,
          ...(subnet ? { IPAM: { Driver: 'default', Config: [{ Subnet: subnet, Gateway: gatewayOf(subnet) }] } } : {}),
        }),
      );
      return network.id;
    } catch (err) {
      const e = toEngineError(err);
      // Another network took that subnet between the look and the create: the next one.
      if (subnet && /overlap/i.test(e.message)) continue;
      if (e.kind !== 'conflict') throw e;
      // Created by someone else between the look and the create.
      return ((await call(() => docker.getNetwork(name).inspect())) as { Id: string }).Id;
    }
  }
  throw new EngineError(
    'failed',
    `every /24 of the address range ${options.pool} is taken by a network: remove unused networks (docker network prune) or give Boxdesk another range (BOXDESK_NETWORK_POOL)`,
  );
}

/**
 * Podman lists the host's interfaces and their addresses to create a network; an interface that
 * goes between the two (another container's veth, removed as it stops) fails the create with Go's
 * "route ip+net: no such network interface". That is the host changing under it, not this
 * network: asked again, it is created. (Taken for a missing network, it had made a box's create a
 * 404 now and then in the Podman lane.)
 */
function vanishingInterfaceRetried<T>(create: () => Promise<T>): Promise<T> {
  return retriedWhile(create, VANISHED_INTERFACE, { attempts: 5, stepMs: 50 });
}

/** The /24s of `pool` no network of the engine overlaps, from a random one on (cores making networks at once rarely meet). */
async function freeSubnets(docker: Docker, pool: string): Promise<string[]> {
  const [base, prefix] = pool.split('/') as [string, string];
  const start = ipv4ToInt(base);
  const count = 2 ** Math.max(0, 24 - Number(prefix));
  const taken = (await call(() => docker.listNetworks()))
    .flatMap((n) => n.IPAM?.Config ?? [])
    .map((c) => (c as { Subnet?: string }).Subnet ?? '')
    .filter((c) => /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(c));
  const overlaps = (a: number, aBits: number, cidr: string) => {
    const [b, bits] = cidr.split('/') as [string, string];
    const shortest = Math.min(aBits, Number(bits));
    const mask = shortest === 0 ? 0 : (~0 << (32 - shortest)) >>> 0;
    return (a & mask) >>> 0 === (ipv4ToInt(b) & mask) >>> 0;
  };
  const free: string[] = [];
  const first = Math.floor(Math.random() * count);
  for (let i = 0; i < count; i++) {
    const net = (start + ((first + i) % count) * 256) >>> 0;
    if (!taken.some((cidr) => overlaps(net, 24, cidr))) free.push(`${intToIpv4(net)}/24`);
  }
  return free;
}

/** The subnet's first address: its bridge's, on the host. */
function gatewayOf(subnet: string): string {
  return intToIpv4(ipv4ToInt(subnet.split('/')[0]!) + 1);
}

export async function networkSubnet(docker: Docker, name: string): Promise<{ subnet: string; gateway: string } | null> {
  const info = (await orNull(() => docker.getNetwork(name).inspect())) as {
    IPAM?: { Config?: { Subnet?: string; Gateway?: string }[] };
  } | null;
  const config = info?.IPAM?.Config?.find((c) => c.Subnet && /^\d+\.\d+\.\d+\.\d+\//.test(c.Subnet));
  return config?.Subnet && config.Gateway ? { subnet: config.Subnet, gateway: config.Gateway } : null;
}

export async function removeNetwork(docker: Docker, name: string): Promise<void> {
  await orNull(() => docker.getNetwork(name).remove());
}

export async function connectNetwork(docker: Docker, network: string, containerId: string): Promise<void> {
  try {
    await docker.getNetwork(network).connect({ Container: containerId });
  } catch (err) {
    const e = toEngineError(err);
    // Docker's words, then Podman's.
    if (/already exists in network|already attached|already connected/i.test(e.message)) return;
    throw e;
  }
}

export async function moveToNetwork(
  docker: Docker,
  containerId: string,
  network: string,
  aliases: string[],
): Promise<void> {
  const info = await call(() => docker.getContainer(containerId).inspect());
  const networkId = ((await call(() => docker.getNetwork(network).inspect())) as { Id: string }).Id;
  const attached = info.NetworkSettings.Networks ?? {};
  for (const [name, endpoint] of Object.entries(attached)) {
    // A network of that name made anew (the old one removed) is another network: join it afresh.
    if (name === network && endpoint.NetworkID === networkId) continue;
    await call(() => docker.getNetwork(name).disconnect({ Container: containerId, Force: true })).catch(
      (err: unknown) => {
        if (!(err instanceof EngineError && err.kind === 'not_found')) throw err;
      },
    );
  }
  if (attached[network]?.NetworkID !== networkId)
    await call(() =>
      docker.getNetwork(network).connect({ Container: containerId, EndpointConfig: { Aliases: aliases } }),
    );
}

export async function pruneNetworks(docker: Docker, labels: Record<string, string>, olderThanS = 0): Promise<void> {
  await call(() =>
    docker.pruneNetworks({
      filters: { label: labelFilter(labels), ...(olderThanS ? { until: [`${olderThanS}s`] } : {}) },
    }),
  );
}

export async function networkGateways(docker: Docker): Promise<string[]> {
  const networks = await call(() => docker.listNetworks());
  return networks
    .flatMap((n) => n.IPAM?.Config ?? [])
    .map((c) => (c as { Gateway?: string }).Gateway ?? '')
    .filter((g) => /^\d+\.\d+\.\d+\.\d+$/.test(g));
}

/**
 * Container addresses recently read from the engine, per engine client. A
 * proxied page opens many short connections; an inspect for each would add
 * milliseconds to every one. An entry lives briefly and goes at the first
 * failed dial, so a restarted container's new address is found at once.
 */
const ADDRESS_TTL_MS = 2000;
const addressBooks = new WeakMap<Docker, Map<string, Target & { until: number }>>();

function addressBook(docker: Docker): Map<string, Target & { until: number }> {
  let book = addressBooks.get(docker);
  if (!book) addressBooks.set(docker, (book = new Map()));
  return book;
}

/**
 * Forgets the container's address: once it stops its address may go to another container at
 * once, and a dial there would reach the wrong box (a started container gets a new one).
 */
export function forgetAddress(docker: Docker, containerId: string): void {
  addressBooks.get(docker)?.delete(containerId);
}

/** How the core reaches a container: its address when the host can route to it, else a relay (relay.ts). */
interface Target {
  address: string;
  routable: boolean;
  /** The box agent is mounted in the container, so the relay needs nothing of the box. */
  agent: boolean;
}

/** Per engine client: whether the host routes to a network (by id; a network made again has a new one). */
const localNetworks = new WeakMap<Docker, Map<string, boolean>>();

async function networkIsLocal(docker: Docker, networkId: string, gateway: string): Promise<boolean> {
  let known = localNetworks.get(docker);
  if (!known) localNetworks.set(docker, (known = new Map()));
  const cached = known.get(networkId);
  if (cached !== undefined) return cached;
  const network = networkId ? await orNull(() => docker.getNetwork(networkId).inspect()) : null;
  const local = bridgeIsLocal(network ? bridgeName(network as Parameters<typeof bridgeName>[0]) : null, gateway);
  if (network) {
    if (known.size > 1000) known.clear();
    known.set(networkId, local);
  }
  return local;
}

async function inspectTarget(docker: Docker, containerId: string, port: number): Promise<Target> {
  const info = await call(() => docker.getContainer(containerId).inspect());
  if (!info.State.Running)
    throw new EngineError(
      'conflict',
      `container ${containerId.slice(0, 12)} is not running, so nothing listens on port ${port}`,
    );
  const network = Object.values(info.NetworkSettings.Networks ?? {}).find((n) => n.IPAddress);
  if (!network)
    throw new EngineError(
      'failed',
      `container ${containerId.slice(0, 12)} has no network address; connect it to a network first`,
    );
  return {
    address: network.IPAddress,
    routable: await networkIsLocal(docker, network.NetworkID ?? '', network.Gateway ?? ''),
    agent: (info.Mounts ?? []).some((m) => m.Destination === AGENT_BINARY_PATH),
  };
}

function dialOnce(address: string, port: number): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket = createConnection({ host: address, port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(err);
    });
  });
}

/**
 * The kernel answers EHOSTUNREACH at once while its neighbour entry for an address is marked
 * failed: an address a removed container had, given again to a new one, stays unreachable
 * until the entry is probed anew. The engine says the container runs at that address, so a
 * short wait and another dial (nothing was sent yet) reaches it.
 */
const UNREACHABLE_RETRIES_MS = [50, 150, 300, 600, 1000];

async function dial(address: string, port: number): Promise<Socket> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await dialOnce(address, port);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const wait = UNREACHABLE_RETRIES_MS[attempt];
      if (err.code === 'EHOSTUNREACH' && wait !== undefined) {
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      throw new EngineError(
        err.code === 'ECONNREFUSED' ? 'not_found' : 'failed',
        `nothing answers on port ${port} in the container (${err.code ?? err.message})`,
      );
    }
  }
}

/**
 * Dials `port` on the container's address on one of its networks where the core's host can route
 * to it (the engine's bridge is on this host: Docker or Podman on Linux), a plain TCP connection.
 * Where it cannot (a VM engine such as Docker Desktop, colima or Podman machine, a remote engine,
 * an engine in another network namespace), the connection is relayed through an exec in the box.
 */
export async function connect(docker: Docker, containerId: string, port: number): Promise<BoxSocket> {
  const book = addressBook(docker);
  const known = book.get(containerId);
  if (known && known.until > Date.now()) {
    if (!known.routable) return relayConnect(docker, containerId, port, known.agent);
    try {
      return await dialOnce(known.address, port);
    } catch {
      book.delete(containerId); // stale, or the port is closed: ask the engine again
    }
  }
  const target = await inspectTarget(docker, containerId, port);
  book.set(containerId, { ...target, until: Date.now() + ADDRESS_TTL_MS });
  return target.routable ? dial(target.address, port) : relayConnect(docker, containerId, port, target.agent);
}
