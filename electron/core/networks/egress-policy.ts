import { parseAllowEntry, type ResolvedNetwork } from '../../../shared/schemas/network';
import { inRange } from '../engine/ipv4';

export interface ProxyDestination {
  network: ResolvedNetwork;
  /** The name the box asked for (or the address it gave). */
  host: string;
  /** Where the proxy would connect for it (resolved by the proxy, not the box). */
  address: string;
  port: number;
  /** The host's own addresses: closed unless network.host. */
  hostAddresses: readonly string[];
  /** Boxdesk's range of project networks: closed through the proxy (a box reaches its peers directly). */
  pool: string;
}

/**
 * Whether the egress proxy may connect a box to a destination: what its packet filter would let it
 * reach directly, and no more, so the proxy (which dials from the host) is no way around it.
 * Loopback and Boxdesk's range are never reached through it; the host only with network.host; an
 * allow list's host entries match by the name asked for, its CIDR entries by the address.
 */
export function proxyPermits(d: ProxyDestination): boolean {
  if (d.network.egress === 'none') return false;
  if (inRange(d.address, '127.0.0.0/8') || inRange(d.address, '0.0.0.0/8') || inRange(d.address, d.pool)) return false;
  if (d.hostAddresses.includes(d.address)) return d.network.host;
  if (d.network.egress === 'open') return true;
  const host = d.host.toLowerCase();
  return d.network.allow.some((entry) => {
    const target = parseAllowEntry(entry);
    if ('error' in target || (target.port !== null && target.port !== d.port)) return false;
    if (target.kind === 'host') return target.host === host;
    if (target.kind === 'domain') return host.endsWith(`.${target.domain}`);
    return inRange(d.address, `${target.address}/${target.prefix}`);
  });
}

/** Whether a box uses the egress proxy: it has secrets, or an allow list (names checked there), and traffic leaves it. */
export function usesProxy(box: { network: ResolvedNetwork; secrets: readonly string[] }): boolean {
  return box.network.egress !== 'none' && (box.secrets.length > 0 || box.network.egress === 'allowlist');
}
