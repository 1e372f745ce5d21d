import { parseAllowEntry } from '../../../shared/schemas/network';
import type { AllowedDestination } from './egress-rules';
import { EgressResolver } from './egress-resolver';

/** The allow entries as networks, host names resolved now; those that do not resolve are named. */
export async function resolveAllowed(
  allow: string[],
  resolver: Pick<EgressResolver, 'resolve'> = new EgressResolver(null),
): Promise<{ allowed: AllowedDestination[]; unresolved: string[] }> {
  const allowed: AllowedDestination[] = [];
  const unresolved: string[] = [];
  for (const entry of allow) {
    const target = parseAllowEntry(entry);
    if ('error' in target) continue; // refused when it was given
    if (target.kind === 'domain') continue; // the egress proxy's alone: no address to open
    if (target.kind === 'cidr') allowed.push({ cidr: `${target.address}/${target.prefix}`, port: target.port });
    else {
      const found = await resolver.resolve(target.host);
      if (!found.length) unresolved.push(entry);
      for (const address of found) allowed.push({ cidr: `${address}/32`, port: target.port });
    }
  }
  return { allowed, unresolved };
}
