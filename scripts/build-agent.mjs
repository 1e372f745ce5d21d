// Builds what the copy-on-write store's helper container is made of, into dist/agent/:
//   boxdesk-agent-linux-amd64, boxdesk-agent-linux-arm64   the static helper binary (agent/, Go, no cgo)
//   boxdesk-edge-linux-amd64, boxdesk-edge-linux-arm64     the preview proxy's native data path (agent/cmd/boxdesk-edge)
//   empty-btrfs.img.gz                                     an empty btrfs filesystem (mkfs.btrfs), gzipped
//   manifest.json                                          versions and sha256 of the above
// Where Go or mkfs.btrfs is missing it says so and builds what it can: the core then falls back
// to the reflink or copy store and says why in GET /v1/system. Never fails `npm run build`.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist', 'agent');
const ARCHES = ['amd64', 'arm64'];
const EMPTY_FS_BYTES = 256 * 1024 * 1024;
const say = (line) => console.log(`[build:agent] ${line}`);

function which(cmd) {
  const found = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

function sha256(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function buildBinaries(version, command, what) {
  const go = process.env.GO ?? which('go');
  if (!go) {
    say(`Go is not installed: ${what} is not built.`);
    say('Install Go (Debian: apt-get install golang-go) and run npm run build:agent again.');
    return {};
  }
  const built = {};
  for (const arch of ARCHES) {
    const file = path.join(out, `${command}-linux-${arch}`);
    execFileSync(
      go,
      ['build', '-trimpath', '-ldflags', `-s -w -X main.version=${version}`, '-o', file, `./cmd/${command}`],
      {
        cwd: path.join(root, 'agent'),
        stdio: ['ignore', 'inherit', 'inherit'],
        // Standard library only: nothing is fetched (GOPROXY=off), and the binary is static.
        env: { ...process.env, CGO_ENABLED: '0', GOOS: 'linux', GOARCH: arch, GOPROXY: 'off' },
      },
    );
    built[arch] = { file: path.basename(file), sha256: sha256(file) };
    say(`built ${path.relative(root, file)}`);
  }
  return built;
}

/** An empty filesystem made here, so neither the user's host nor the helper needs btrfs tools. */
function buildEmptyFilesystem() {
  const mkfs = which('mkfs.btrfs') ?? ['/usr/sbin/mkfs.btrfs', '/sbin/mkfs.btrfs'].find((f) => fs.existsSync(f));
  if (!mkfs) {
    say(
      'mkfs.btrfs is not installed (Debian: apt-get install btrfs-progs): no empty filesystem, so no loop-btrfs store.',
    );
    return null;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-empty-btrfs-'));
  try {
    const image = path.join(tmp, 'empty.img');
    fs.closeSync(fs.openSync(image, 'w'));
    fs.truncateSync(image, EMPTY_FS_BYTES);
    execFileSync(mkfs, ['-q', '-f', '-L', 'boxdesk-store', image], { stdio: ['ignore', 'ignore', 'inherit'] });
    const file = path.join(out, 'empty-btrfs.img.gz');
    fs.writeFileSync(file, zlib.gzipSync(fs.readFileSync(image), { level: 9 }));
    say(`made ${path.relative(root, file)} (${EMPTY_FS_BYTES >> 20} MiB, ${fs.statSync(file).size} bytes gzipped)`);
    return { file: path.basename(file), sha256: sha256(file), bytes: EMPTY_FS_BYTES };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const manifest = {
  version,
  binaries: buildBinaries(
    version,
    'boxdesk-agent',
    'the box agent and store helper (the core uses the engine and the reflink or copy store)',
  ),
  edge: buildBinaries(version, 'boxdesk-edge', "the preview proxy's native data path (the Node proxy serves the port)"),
  empty_filesystem: buildEmptyFilesystem(),
};
fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
