import { lookup } from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';

/** Reads a hosts-format file: "ADDRESS NAME [NAME…]" a line, # comments; IPv4 addresses only. */
export function parseHostsFile(text: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...hosts] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || !hosts.length || net.isIPv4(address) === false) continue;
    for (const host of hosts) {
      const key = host.toLowerCase();
      names.set(key, [...(names.get(key) ?? []), address]);
    }
  }
  return names;
}

/**
 * How the egress proxy and the allow list's rules find a host's IPv4 addresses: an address is
 * itself; a name is looked up in the `--egress-hosts` file first (read again when it changes), then
 * by the system's resolver. An empty answer: it does not resolve.
 */
export class EgressResolver {
  private read: { mtimeMs: number; names: Map<string, string[]> } | null = null;

  constructor(private readonly hostsFile: string | null) {}

  private fromFile(host: string): string[] | undefined {
    if (!this.hostsFile) return undefined;
    try {
      const { mtimeMs } = fs.statSync(this.hostsFile);
      if (this.read?.mtimeMs !== mtimeMs)
        this.read = { mtimeMs, names: parseHostsFile(fs.readFileSync(this.hostsFile, 'utf8')) };
    } catch {
      this.read = null; // gone: the system's resolver alone
    }
    return this.read?.names.get(host.toLowerCase());
  }

  async resolve(host: string): Promise<string[]> {
    if (net.isIPv4(host)) return [host];
    const listed = this.fromFile(host);
    if (listed) return listed;
    const found = await lookup(host, { all: true, family: 4 }).catch(() => []);
    return found.map((a) => a.address);
  }
}
