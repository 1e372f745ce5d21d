import fs from 'node:fs';
import path from 'node:path';

/** What `npm run build:agent` (scripts/build-agent.mjs) leaves in dist/agent/. */
interface Manifest {
  version: string;
  binaries: Partial<Record<'amd64' | 'arm64', { file: string; sha256: string }>>;
  /** The preview proxy's edge (agent/cmd/boxdesk-edge); missing from builds before it. */
  edge?: Partial<Record<'amd64' | 'arm64', { file: string; sha256: string }>>;
  empty_filesystem: { file: string; sha256: string; bytes: number } | null;
}

export interface AgentFiles {
  version: string;
  /** The static helper binary for the engine's architecture. */
  binary: string;
  /** The gzipped empty btrfs filesystem; null where mkfs.btrfs was missing at build time. */
  emptyFilesystem: string | null;
  /** Names the helper image: a new build makes a new image. */
  digest: string;
}

/** dist/agent beside the sources (tsx) or beside the Electron bundle (dist/electron). */
function candidates(): string[] {
  const here = typeof __dirname === 'string' ? __dirname : import.meta.dirname;
  return [
    process.env.BOXDESK_AGENT_DIR ?? '',
    path.resolve(here, '../../../../dist/agent'),
    path.resolve(here, '../agent'),
  ].filter(Boolean);
}

export function engineArch(): 'amd64' | 'arm64' | null {
  // The local engine runs on this machine; a remote engine's architecture is a later issue (regions).
  return process.arch === 'x64' ? 'amd64' : process.arch === 'arm64' ? 'arm64' : null;
}

/** The built helper, or why there is none (said in GET /v1/system). */
export function findAgentFiles(): AgentFiles | { missing: string } {
  const dir = candidates().find((d) => fs.existsSync(path.join(d, 'manifest.json')));
  if (!dir) return { missing: 'the store helper is not built (npm run build:agent needs Go)' };
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const arch = engineArch();
  const binary = arch ? manifest.binaries[arch] : undefined;
  if (!binary)
    return {
      missing: `the store helper was not built${arch ? ` for ${arch}` : ` for ${process.arch}`} (npm run build:agent needs Go)`,
    };
  const empty = manifest.empty_filesystem;
  return {
    version: manifest.version,
    binary: path.join(dir, binary.file),
    emptyFilesystem: empty ? path.join(dir, empty.file) : null,
    digest: `${binary.sha256.slice(0, 16)}-${(empty?.sha256 ?? 'none').slice(0, 16)}`,
  };
}

/** The preview proxy's edge built for this machine (it runs beside the core), or why there is none. */
export function findEdgeBinary(): { binary: string; version: string } | { missing: string } {
  if (process.platform !== 'linux')
    return { missing: `the edge is built for Linux only (this is ${process.platform})` };
  const dir = candidates().find((d) => fs.existsSync(path.join(d, 'manifest.json')));
  if (!dir) return { missing: 'the edge is not built (npm run build:agent needs Go)' };
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const arch = engineArch();
  const edge = arch ? manifest.edge?.[arch] : undefined;
  if (!edge || !fs.existsSync(path.join(dir, edge.file)))
    return { missing: `the edge was not built for ${arch ?? process.arch} (npm run build:agent needs Go)` };
  return { binary: path.join(dir, edge.file), version: manifest.version };
}
