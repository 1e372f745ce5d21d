import { PublishedDomain } from '../../../../shared/schemas/publishing';

const HOSTNAME = new RegExp(PublishedDomain.pattern!);
const IPV4 = /^\d+(\.\d+){3}$/;
const BOX_SCHEME = /^[^.]+--[^.]+\.localhost$/i;

/**
 * Why a domain cannot be published, or null: the shared schema's hostname
 * rule plus the refusals the API makes (docs/api.md, Publishing).
 */
export function domainError(domain: string): string | null {
  const d = domain.trim().toLowerCase();
  if (d.length === 0 || d.length > 253 || !HOSTNAME.test(d))
    return `${domain} is not a hostname: use letters, digits, hyphens and dots, like myapp.test`;
  if (IPV4.test(d)) return `${domain} is an IP address: give a name, like myapp.test, and map it to 127.0.0.1`;
  if (d === 'localhost') return 'localhost is the API’s own host: pick another name, like myapp.localhost';
  if (BOX_SCHEME.test(d)) return `${domain} has the form of a box URL ({box}--{project}.localhost): pick another name`;
  return null;
}

/** The first problem among the domains, naming the domain. */
export function domainsError(domains: string[]): string | null {
  for (const d of domains) {
    const e = domainError(d);
    if (e) return e;
  }
  return null;
}

/** A problem's `errors[].path` that concerns the domains (`domains.2`), the port or the access. */
export function publishFieldOf(p: string): 'port' | 'domains' | 'auth' | null {
  if (p.startsWith('port')) return 'port';
  if (p.startsWith('domains')) return 'domains';
  if (p.startsWith('auth')) return 'auth';
  return null;
}
