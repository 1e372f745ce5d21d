import type { Command } from 'commander';
import {
  EGRESS_MODES,
  type EgressMode,
  type NetworkSettings,
  type ResolvedNetwork,
} from '../../shared/schemas/network';
import { UsageError, collect } from '../options';

export interface NetworkFlags {
  egress?: string;
  allow?: string[];
  networkHost?: boolean;
  secret?: string[];
  secrets?: boolean;
}

/** `--egress`, `--allow` and `--network-host` / `--no-network-host` (the box's `network`), for create and update. */
export function networkOptions(cmd: Command): Command {
  return cmd
    .option('--egress <open|none|allowlist>', 'what the box may reach outside: everything, nothing, or --allow only')
    .option(
      '--allow <ENTRY>',
      'a destination the allow list lets through: IP, CIDR, host or *.domain (through the egress proxy), optionally :PORT (repeatable; implies --egress allowlist; replaces the list)',
      collect,
    )
    .option('--network-host', "let the box reach the host's own addresses (network.host)")
    .option('--no-network-host', "close the host's addresses to the box again (the default)")
    .option('--secret <NAME>', 'a secret the box holds a placeholder of (repeatable; replaces the list)', collect)
    .option('--no-secrets', 'take every secret from the box');
}

/** The `secrets` of a create or update body from the flags; undefined when none was given. */
export function secretsBody(opts: NetworkFlags): string[] | undefined {
  if (opts.secret?.length) {
    if (opts.secrets === false) throw new UsageError('give --secret or --no-secrets, not both');
    return [...new Set(opts.secret)];
  }
  return opts.secrets === false ? [] : undefined;
}

/** The `network` of a create or update body from the flags; undefined when none was given. */
export function networkBody(opts: NetworkFlags): NetworkSettings | undefined {
  const network: NetworkSettings = {};
  if (opts.egress !== undefined) {
    if (!(EGRESS_MODES as readonly string[]).includes(opts.egress))
      throw new UsageError(`--egress must be one of ${EGRESS_MODES.join(', ')}, not "${opts.egress}"`);
    network.egress = opts.egress as EgressMode;
  }
  if (opts.allow?.length) {
    network.egress ??= 'allowlist';
    network.allow = opts.allow;
  }
  if (opts.networkHost !== undefined) network.host = opts.networkHost;
  return Object.keys(network).length ? network : undefined;
}

/** One line for a box's details: "allowlist: 10.0.0.0/8, api.example.com:443; host closed". */
export function describeNetwork(network: ResolvedNetwork): string {
  const egress =
    network.egress === 'allowlist' ? `allowlist: ${network.allow.join(', ') || '(empty)'}` : network.egress;
  return `${egress}; host ${network.host ? 'open' : 'closed'}`;
}
