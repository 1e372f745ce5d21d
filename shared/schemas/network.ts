import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject } from './common';

export const EGRESS_MODES = ['open', 'none', 'allowlist'] as const;
export type EgressMode = (typeof EGRESS_MODES)[number];

const Egress = Type.Union(
  EGRESS_MODES.map((m) => Type.Literal(m)),
  {
    description:
      'open: any destination (the host still closed unless host is true); none: no traffic leaves the box (TCP, UDP, DNS); allowlist: only the allow entries (and DNS).',
  },
);

export const ALLOW_ENTRY_DESCRIPTION =
  'host[:port], *.domain[:port], IPv4 address[:port] or CIDR[:port], e.g. 10.0.0.0/8, 203.0.113.7:443, api.example.com:443, *.example.com:443. A host name is resolved when the rule is applied (at start and at each update); *.domain is reached through the egress proxy only (HTTP and HTTPS clients that follow HTTPS_PROXY).';

export const NetworkSettings = ClosedObject({
  egress: Type.Optional(Egress),
  allow: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 260, description: ALLOW_ENTRY_DESCRIPTION }), {
      maxItems: 64,
    }),
  ),
  host: Type.Optional(
    Type.Boolean({ description: "Whether the box may reach the host's own addresses (default false)." }),
  ),
});
export type NetworkSettings = Static<typeof NetworkSettings>;

export const ResolvedNetwork = Type.Object({
  egress: Egress,
  allow: Type.Array(Type.String()),
  host: Type.Boolean(),
});
export type ResolvedNetwork = Static<typeof ResolvedNetwork>;

export const DEFAULT_NETWORK: ResolvedNetwork = { egress: 'open', allow: [], host: false };

/** One allow entry, parsed: an IPv4 network or a host name, and a port (null: every port). */
export type AllowTarget =
  | { kind: 'cidr'; address: string; prefix: number; port: number | null }
  | { kind: 'host'; host: string; port: number | null }
  /** `*.domain`: any name under it, reached through the egress proxy only (no address to filter by). */
  | { kind: 'domain'; domain: string; port: number | null };

const HOST_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

function parsePort(text: string): number | string {
  if (!/^[0-9]{1,5}$/.test(text)) return `the port "${text}" is not a number`;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : `the port ${port} is not between 1 and 65535`;
}

function parseIpv4(text: string): string | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number).join('.');
}

/** An allow entry parsed, or what is wrong with it. */
export function parseAllowEntry(entry: string): AllowTarget | { error: string } {
  const colon = entry.lastIndexOf(':');
  const target = colon < 0 ? entry : entry.slice(0, colon);
  let port: number | null = null;
  if (colon >= 0) {
    const parsed = parsePort(entry.slice(colon + 1));
    if (typeof parsed === 'string') return { error: parsed };
    port = parsed;
  }
  const wildcard = target.startsWith('*.');
  const name = wildcard ? target.slice(2) : target;
  const slash = target.indexOf('/');
  if (!wildcard && (slash >= 0 || /^[0-9.]+$/.test(target))) {
    const address = parseIpv4(slash >= 0 ? target.slice(0, slash) : target);
    if (!address) return { error: `"${target}" is not an IPv4 address or CIDR (e.g. 10.0.0.0/8)` };
    if (slash < 0) return { kind: 'cidr', address, prefix: 32, port };
    const prefixText = target.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!/^[0-9]{1,2}$/.test(prefixText) || prefix > 32)
      return { error: `"/${prefixText}" is not a prefix length from 0 to 32` };
    return { kind: 'cidr', address, prefix, port };
  }
  if (name.length > 253 || !name.split('.').every((label) => HOST_LABEL.test(label)))
    return { error: `"${target}" is not a host name, *.domain, an IPv4 address or a CIDR` };
  if (wildcard) return { kind: 'domain', domain: name.toLowerCase(), port };
  return { kind: 'host', host: name.toLowerCase(), port };
}

/** What is wrong with network settings, field by field (path as a request body names it). */
export function networkProblems(settings: NetworkSettings, path = 'body.network'): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  (settings.allow ?? []).forEach((entry, i) => {
    const parsed = parseAllowEntry(entry);
    if ('error' in parsed) problems.push({ path: `${path}.allow.${i}`, message: parsed.error });
  });
  return problems;
}
