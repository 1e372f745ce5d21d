import { inRange } from '../engine/ipv4';
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
  /** The host's own IPv4 addresses (its interfaces', the engine's bridges'): closed unless network.host. */
  hostAddresses: string[];
  /** The range every project network of Boxdesk's is made in: other projects' boxes and bridges. */
  pool: string;
  /** The box's own project network: its peers (open to an open box) and its gateway (the host). */
  own: { subnet: string; gateway: string } | null;
  /** The egress proxy's port at the box's gateway, open to a box that uses it (networks/egress-proxy.ts); null: closed. */
  proxyPort?: number | null;
  /** The engine's resolver answers on the network's gateway (Podman's aardvark-dns), not inside the box. */
  resolverOnGateway?: boolean;
}

/** Accepted and, a connection's first packet, logged for the egress log (egress-log.ts). */
const ALLOW = '-j BOXDESK-ALLOW';

function accept({ cidr, port }: AllowedDestination): string[] {
  if (port === null) return [`-A OUTPUT -d ${cidr} ${ALLOW}`];
  return ['tcp', 'udp'].map((proto) => `-A OUTPUT -d ${cidr} -p ${proto} --dport ${port} ${ALLOW}`);
}

/** Whether the network `cidr` lies inside `outer`. */
function within(cidr: string, outer: string): boolean {
  const [address, bits] = cidr.split('/') as [string, string];
  return Number(bits ?? 32) >= Number(outer.split('/')[1]) && inRange(address, outer);
}

/**
 * Refused, not dropped: a new connection fails at once ("No route to host"), not after a timeout;
 * a connection the box opened before a change is reset at its next packet (ICMP alone would not
 * end an established TCP connection: the kernel takes it for a passing fault and retries).
 */
const REFUSE = '-j BOXDESK-REFUSE';

/**
 * The egress log's rules: NFLOG sends the packet filter's helper the headers of a denied packet, of
 * an allowed connection's first packet, and the resolver's answers (to name the addresses), each
 * kind at a bounded rate so a box cannot flood the helper. The prefix says which rule logged it
 * (agent/internal/netfilter/egress_tracker.go).
 */
export const NFLOG_GROUP = 1;
const nflog = (prefix: string, rate: string, size: number) =>
  `-m limit --limit ${rate} --limit-burst 100 -j NFLOG --nflog-group ${NFLOG_GROUP} --nflog-prefix ${prefix} --nflog-size ${size}`;
const ALLOW_CHAIN = [
  ':BOXDESK-ALLOW - [0:0]',
  `-A BOXDESK-ALLOW -m conntrack --ctstate NEW ${nflog('bd-allow', '200/second', 64)}`,
  '-A BOXDESK-ALLOW -j ACCEPT',
];
const DNS_LOG = `-A INPUT -s ${EMBEDDED_DNS}/32 -p udp ${nflog('bd-dns', '100/second', 600)}`;
const REFUSE_CHAIN = [
  ':BOXDESK-REFUSE - [0:0]',
  `-A BOXDESK-REFUSE ${nflog('bd-deny', '20/second', 64)}`,
  '-A BOXDESK-REFUSE -p tcp -m conntrack --ctstate ESTABLISHED -j REJECT --reject-with tcp-reset',
  '-A BOXDESK-REFUSE -j REJECT --reject-with icmp-admin-prohibited',
];

/**
 * The box's filter table, in iptables-restore's format: it replaces the whole table at once, so
 * a change is never half applied. Only what the box sends is filtered (OUTPUT). Its answers on
 * connections made to it pass (the reply direction), so the core's proxy and the project's boxes
 * still reach its servers; every packet of a connection the box made itself meets the rules, so a
 * change also cuts one it opened before. The rules name no other project's network one by one:
 * the whole range they are made in is closed, so a new project needs no change here.
 */
export function filterTable(inputs: FilterInputs): string {
  const { network, allowed, hostAddresses, pool, own, proxyPort } = inputs;
  const rules = ['-A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED --ctdir REPLY -j ACCEPT'];
  const resolver = inputs.resolverOnGateway && own ? own.gateway : EMBEDDED_DNS;
  // `none` closes the resolver too: it would forward any question (and so any data) to the outside.
  if (network.egress === 'none') rules.push(`-A OUTPUT -d ${resolver}/32 ${REFUSE}`);
  // On the gateway, the resolver's port is open before the host's addresses are closed (its
  // questions are no egress of their own: not logged).
  else if (resolver !== EMBEDDED_DNS)
    rules.push(...['tcp', 'udp'].map((proto) => `-A OUTPUT -d ${resolver}/32 -p ${proto} --dport 53 -j ACCEPT`));
  // The box's own loopback is no egress: neither filtered nor logged.
  rules.push('-A OUTPUT -o lo -j ACCEPT');
  // The egress proxy at the gateway, and of the host nothing else (unless network.host). Not logged
  // here: the proxy records each connection it carries under the name the box asked for.
  if (proxyPort && own && network.egress !== 'none')
    rules.push(`-A OUTPUT -d ${own.gateway}/32 -p tcp --dport ${proxyPort} -j ACCEPT`);
  const host = [...(own ? [own.gateway] : []), ...hostAddresses];
  const hostOpen = network.host && network.egress !== 'none';
  for (const address of host) rules.push(`-A OUTPUT -d ${address}/32 ${hostOpen ? ALLOW : REFUSE}`);
  if (network.egress === 'open' && own) rules.push(`-A OUTPUT -d ${own.subnet} ${ALLOW}`);
  // Entries inside the box's own project network come before the range is closed; any other in the range stays closed.
  const entries = network.egress === 'allowlist' ? allowed : [];
  const mine = entries.filter((entry) => own !== null && within(entry.cidr, own.subnet));
  rules.push(...mine.flatMap(accept));
  rules.push(`-A OUTPUT -d ${pool} ${REFUSE}`);
  rules.push(...entries.filter((entry) => !mine.includes(entry)).flatMap(accept));
  rules.push(`-A OUTPUT ${network.egress === 'open' ? ALLOW : REFUSE}`);
  return [
    '*filter',
    ':INPUT ACCEPT [0:0]',
    ':FORWARD ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ...REFUSE_CHAIN,
    ...ALLOW_CHAIN,
    DNS_LOG,
    ...rules,
    'COMMIT',
    '',
  ].join('\n');
}

/**
 * Whether the box's settings close anything: one open to everything, the host included, has rules
 * only for its egress log, and runs without them where the packet filter cannot be had.
 */
export function enforces(network: ResolvedNetwork): boolean {
  return network.egress !== 'open' || !network.host;
}

/** Where Boxdesk makes its project networks unless BOXDESK_NETWORK_POOL says otherwise: 256 projects of 254 boxes. */
export const DEFAULT_NETWORK_POOL = '10.210.0.0/16';

/** BOXDESK_NETWORK_POOL (an IPv4 CIDR of /24 or shorter), else the default; a bad one is an error that says so. */
export function networkPool(env: NodeJS.ProcessEnv = process.env): string {
  const value = env.BOXDESK_NETWORK_POOL?.trim();
  if (!value) return DEFAULT_NETWORK_POOL;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  const ok = m && m.slice(1, 5).every((p) => Number(p) <= 255) && Number(m[5]) >= 8 && Number(m[5]) <= 24;
  if (!ok)
    throw new Error(
      `BOXDESK_NETWORK_POOL must be an IPv4 range from /8 to /24 like ${DEFAULT_NETWORK_POOL}, got "${value}"`,
    );
  const [a, b, c, d, bits] = m.slice(1).map(Number) as [number, number, number, number, number];
  // The range's own first address, whatever host bits were given.
  const n = (((a << 24) | (b << 16) | (c << 8) | d) >>> 0) & ((~0 << (32 - bits)) >>> 0);
  return `${[24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.')}/${bits}`;
}
