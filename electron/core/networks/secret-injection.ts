import type { StoredSecret } from '../secrets/port';

/** What injecting needs of a secret: no created_at, no env. */
export type InjectedSecret = Pick<StoredSecret, 'name' | 'value' | 'placeholder' | 'hosts' | 'header'>;

/** The header a secret without one adds, and how its value is written there. */
export const DEFAULT_SECRET_HEADER = 'authorization';

/** Whether `host` is one of `patterns` (a name, or `*.domain` for any name under it). */
export function hostMatches(patterns: readonly string[], host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((p) => (p.startsWith('*.') ? name.endsWith(p.slice(1)) : name === p));
}

/** The secrets among `secrets` whose values may go to `host`. */
export function secretsFor<S extends InjectedSecret>(secrets: readonly S[], host: string): S[] {
  return secrets.filter((s) => hostMatches(s.hosts, host));
}

/** `text` with each secret's placeholder replaced by its value. */
export function replacePlaceholders(text: string, secrets: readonly InjectedSecret[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s.placeholder)) out = out.split(s.placeholder).join(s.value);
  return out;
}

/**
 * A request's headers (Node's raw list: name, value, name, value…) for a host whose secrets are
 * `secrets`: placeholders replaced in every value, then each secret's header added where the
 * request has none of that name — `Authorization: Bearer <value>` by default, else the bare value.
 * Headers of other secrets' placeholders are left as they are (they reach no host of theirs).
 */
export function injectHeaders(raw: readonly string[], secrets: readonly InjectedSecret[]): [string, string][] {
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i]!, replacePlaceholders(raw[i + 1]!, secrets)]);
  for (const s of secrets) {
    const name = (s.header ?? DEFAULT_SECRET_HEADER).toLowerCase();
    if (headers.some(([n]) => n.toLowerCase() === name)) continue;
    headers.push([s.header ?? 'Authorization', s.header ? s.value : `Bearer ${s.value}`]);
  }
  return headers;
}
