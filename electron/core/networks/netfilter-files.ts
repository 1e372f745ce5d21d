import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A file of the packet filter helper's image: where it goes in the image, and its bytes. */
export interface ImageFile {
  path: string;
  data: Buffer;
  mode: number;
}

export interface NetfilterFiles {
  /** The multi-call binary in the image (xtables-nft-multi, or the legacy one). */
  binary: string;
  files: ImageFile[];
  /** Names the image: other files make another image. */
  digest: string;
}

/** Debian's iptables: the nftables flavour where it is there (what the distribution uses), else the legacy one. */
const BINARIES = ['/usr/sbin/xtables-nft-multi', '/usr/sbin/xtables-legacy-multi', '/sbin/xtables-nft-multi'];
/** The extensions the rules use (egress-rules.ts): targets ACCEPT/REJECT/NFLOG, matches conntrack, tcp, udp, limit. */
const EXTENSIONS = [
  'libxt_standard.so',
  'libxt_conntrack.so',
  'libxt_tcp.so',
  'libxt_udp.so',
  'libipt_REJECT.so',
  'libxt_NFLOG.so',
  'libxt_limit.so',
];
const EXTENSION_DIRS = [
  '/usr/lib/x86_64-linux-gnu/xtables',
  '/usr/lib/aarch64-linux-gnu/xtables',
  '/usr/lib/xtables',
  '/usr/lib64/xtables',
];

/** The shared libraries `file` loads, as `ldd` names them (the loader too). */
function librariesOf(file: string): string[] {
  const out = execFileSync('ldd', [file], { encoding: 'utf8' });
  return [...out.matchAll(/(\/[^\s)]+)/g)].map((m) => m[1]!);
}

let found: NetfilterFiles | { missing: string } | undefined;

/**
 * The files of the packet filter helper's image, taken from this machine's iptables package: its
 * binary, the extensions the rules use and the libraries they load, each at its own path (the
 * binary looks for its extensions where it was built to). Read once.
 */
export function findNetfilterFiles(): NetfilterFiles | { missing: string } {
  if (found) return found;
  const binary = BINARIES.find((b) => fs.existsSync(b));
  const extensionDir = EXTENSION_DIRS.find((d) => fs.existsSync(path.join(d, EXTENSIONS[0]!)));
  if (!binary || !extensionDir)
    return (found = {
      missing: 'iptables is not installed on this machine (Debian/Ubuntu: apt-get install iptables)',
    });
  try {
    const extensions = EXTENSIONS.map((e) => path.join(extensionDir, e));
    const paths = new Set([binary, ...extensions, ...[binary, ...extensions].flatMap(librariesOf)]);
    const files = [...paths].sort().map((p) => ({ path: p, data: fs.readFileSync(p), mode: 0o755 }));
    const hash = createHash('sha256');
    for (const f of files) hash.update(f.path).update(f.data);
    return (found = { binary, files, digest: hash.digest('hex').slice(0, 16) });
  } catch (err) {
    return (found = { missing: `the iptables files could not be read: ${(err as Error).message}` });
  }
}
