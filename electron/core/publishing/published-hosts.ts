import { DNS_LABEL_PATTERN } from '../../../shared/schemas/common';
import { ApiError } from '../../../shared/errors';

const LABEL = new RegExp(DNS_LABEL_PATTERN);

/** The preview host of a box: `{box}--{project}.localhost`. */
export function previewHost(name: string, project: string): string {
  return `${name}--${project}.localhost`;
}

/** `http://{box}--{project}.localhost:{proxy_port}` */
export function previewUrl(name: string, project: string, proxyPort: number): string {
  return `http://${previewHost(name, project)}:${proxyPort}`;
}

/** The hostname of a Host header or an origin's host: lower case, without port or trailing dot. */
export function hostnameOf(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/**
 * Every (box, project) pair a preview hostname could name. Names may contain
 * "--" themselves, so "a--b--c.localhost" is tried as a/b--c and a--b/c.
 */
export function previewCandidates(hostname: string): { name: string; project: string }[] {
  const m = /^([a-z0-9-]+)\.localhost$/.exec(hostname);
  if (!m) return [];
  const label = m[1]!;
  const out: { name: string; project: string }[] = [];
  for (let i = label.indexOf('--'); i > 0; i = label.indexOf('--', i + 1)) {
    const name = label.slice(0, i);
    const project = label.slice(i + 2);
    if (LABEL.test(name) && LABEL.test(project)) out.push({ name, project });
  }
  return out;
}

/** A hostname of the box scheme: a single label holding "--", under .localhost (or a port's: `{port}.` before it). */
export function isPreviewHostname(hostname: string): boolean {
  return /^([0-9]+\.)?[a-z0-9-]*--[a-z0-9-]*\.localhost$/.test(hostname);
}

/** `{port}.{box}--{project}.localhost`: the port, and the box's own preview hostname; null for any other. */
export function portHostname(hostname: string): { port: number; hostname: string } | null {
  const m = /^([0-9]{1,5})\.([a-z0-9-]+\.localhost)$/.exec(hostname);
  return m ? { port: Number(m[1]), hostname: m[2]! } : null;
}

/**
 * Normalises and checks the domains of a publish request: hostnames only
 * (no IP addresses), never the API's own host, never a name of the box
 * scheme (it would shadow or impersonate a box's own preview URL).
 */
export function checkDomains(domains: string[]): string[] {
  const out: string[] = [];
  domains.forEach((raw, i) => {
    const domain = raw.toLowerCase().replace(/\.$/, '');
    const path = `body.domains.${i}`;
    const refuse = (why: string) => {
      throw new ApiError('invalid_body', `domain "${raw}" ${why}`, { errors: [{ path, message: why }] });
    };
    if (/^[0-9.]+$/.test(domain) || /^[0-9]+$/.test(domain.slice(domain.lastIndexOf('.') + 1)))
      refuse('is an IP address; give a hostname such as "myapp.test"');
    if (domain === 'localhost' || domain === 'localhost.localdomain')
      refuse('is the API\'s own host; pick a name such as "myapp.localhost"');
    if (isPreviewHostname(domain))
      refuse(
        'has the form of a box preview host ({box}--{project}.localhost); pick a name without "--" in its first label',
      );
    if (!out.includes(domain)) out.push(domain);
  });
  return out;
}
