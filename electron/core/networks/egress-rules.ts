import type { ResolvedNetwork } from '../../../shared/schemas/network';

/** Where the engine's resolver answers inside a box on a user network (box names, and the outside through it). */
export const EMBEDDED_DNS = '127.0.0.11';

/** An allow entry as the packet filter takes it: an IPv4 network and a port (null: every port). */
export interface AllowedDestination {
  cidr: string;
  port: number | null;
}

export interface FilterInputs {
  network: ResolvedNetwork;
  /** The allow entries, host names already resolved. */
  allowed: AllowedDestination[];
  /** The host's own IPv4 addresses (its bridges' gateways among them): closed unless network.host. */
  hostAddresses: string[];
}

/** Refused, not dropped: the box's connect fails at once ("No route to host"), not after a timeout. */
const REFUSE = '-j REJECT --reject-with icmp-admin-prohibited';

/**
 * The box's filter table, in iptables-restore's format: it replaces the whole table at once, so
 * a change is never half applied. Only what the box sends is filtered (OUTPUT); answers on
 * connections already made pass, so the core's proxy and the project's boxes still reach its
 * servers, and a change applies from the next connection on.
 */
export function filterTable({ network, allowed, hostAddresses }: FilterInputs): string {
  const rules = ['-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT'];
  // `none` closes the resolver too: it would forward any question (and so any data) to the outside.
  if (network.egress === 'none') rules.push(`-A OUTPUT -d ${EMBEDDED_DNS}/32 ${REFUSE}`);
  if (network.egress !== 'open') rules.push('-A OUTPUT -o lo -j ACCEPT');
  if (!network.host) for (const address of hostAddresses) rules.push(`-A OUTPUT -d ${address}/32 ${REFUSE}`);
  if (network.egress === 'allowlist')
    for (const { cidr, port } of allowed) {
      if (port === null) rules.push(`-A OUTPUT -d ${cidr} -j ACCEPT`);
      else for (const proto of ['tcp', 'udp']) rules.push(`-A OUTPUT -d ${cidr} -p ${proto} --dport ${port} -j ACCEPT`);
    }
  if (network.egress !== 'open') rules.push(`-A OUTPUT ${REFUSE}`);
  return [
    '*filter',
    ':INPUT ACCEPT [0:0]',
    ':FORWARD ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ...rules,
    'COMMIT',
    '',
  ].join('\n');
}

/** Whether a box freshly started (no rules yet) needs any: everything open, the host included, needs none. */
export function needsRules(network: ResolvedNetwork): boolean {
  return network.egress !== 'open' || !network.host;
}
