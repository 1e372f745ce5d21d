import { lookup } from 'node:dns/promises';
import { parseAllowEntry } from '../../../shared/schemas/network';
import type { AllowedDestination } from './egress-rules';

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
