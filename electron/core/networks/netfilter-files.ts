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
 * binary looks for its extensions where it was built to). Found once; the files themselves are
 * read (and their libraries asked of `ldd`, eight runs) only when an image is made of them, not at
 * every start of the core: that took 0.1-0.2 s of each start, with the event loop held.
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
    const programs = [binary, ...EXTENSIONS.map((e) => path.join(extensionDir, e))];
    let files: ImageFile[] | undefined;
    return (found = {
      binary,
      get files(): ImageFile[] {
        files ??= readFiles(programs);
        return files;
      },
      digest: identityOf(programs),
    });
  } catch (err) {
    return (found = { missing: `the iptables files could not be read: ${(err as Error).message}` });
  }
}

/**
 * Names the image by the programs' paths, sizes and modification times: another iptables makes
 * another image. The image holds the libraries it was made with, so a library updated since
 * leaves it whole.
 */
function identityOf(programs: string[]): string {
  const hash = createHash('sha256');
  for (const p of programs) {
    const stat = fs.statSync(p, { bigint: true });
    hash.update(`${p}\0${stat.size}\0${stat.mtimeNs}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The programs and the libraries they load, each read at its path. */
function readFiles(programs: string[]): ImageFile[] {
  const paths = new Set([...programs, ...programs.flatMap(librariesOf)]);
  return [...paths].sort().map((p) => ({ path: p, data: fs.readFileSync(p), mode: 0o755 }));
}
