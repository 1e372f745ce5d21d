// better-sqlite3 is a native addon: the copy npm installs is built for Node's
// ABI (tests, the headless core, the CLI), and Electron cannot load it. This
// builds a second copy for Electron's ABI into dist/native/, leaving the Node
// build alone; the Electron main process hands it to the core as the
// addon's nativeBinding. Packaged apps get theirs from electron-builder.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Where the Electron build of the addon lives; electron/main.ts looks in the same place. */
export function electronBindingPath(root, electronVersion) {
  return path.join(
    root,
    'dist',
    'native',
    `electron-${electronVersion}-${process.platform}-${process.arch}`,
    'better_sqlite3.node',
  );
}

/** The first line of a tool's output that says what went wrong. */
function firstError(output) {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // node-gyp spreads its message over several "stack" lines before the trace.
  const stack = lines
    .filter((l) => l.startsWith('gyp ERR! stack ') && !/^gyp ERR! stack\s+at /.test(l))
    .map((l) => l.slice('gyp ERR! stack '.length).replace(/^Error: /, ''));
  if (stack.length) return stack.join(' ');
  return lines.find((l) => /\b(warn|ERR!|error)\b/i.test(l) && !/not ok$/.test(l)) ?? lines.at(-1);
}

/** npm ships node-gyp; find it beside the npm that runs us. */
function nodeGyp() {
  const npmCli = process.env.npm_execpath;
  const candidates = [
    npmCli && path.join(path.dirname(path.dirname(npmCli)), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ].filter(Boolean);
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed as a package of ours
  }
  return candidates.find((c) => fs.existsSync(c)) ?? null;
}

/**
 * Ensures the Electron build exists: a prebuilt download first, else a compile
 * against Electron's headers. Returns { binding } or { reason }.
 */
export function ensureElectronSqlite(root, electronVersion, { runtime = 'electron', log = console.log } = {}) {
  const target = electronBindingPath(root, electronVersion);
  if (fs.existsSync(target)) return { binding: target };
  const pkgDir = path.dirname(require.resolve('better-sqlite3/package.json', { paths: [root] }));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-sqlite-'));
  try {
    // A copy without the Node build, so nothing we do here touches it.
    fs.cpSync(pkgDir, work, { recursive: true, filter: (src) => path.relative(pkgDir, src) !== 'build' });
    const built = path.join(work, 'build', 'Release', 'better_sqlite3.node');
    const gyp = nodeGyp();
    const attempts = [
      [
        'download a prebuilt addon',
        [
          require.resolve('prebuild-install/bin.js', { paths: [pkgDir] }),
          '--runtime',
          runtime,
          '--target',
          electronVersion,
        ],
      ],
      ...(gyp
        ? [
            [
              'compile it',
              [
                gyp,
                'rebuild',
                '--release',
                `--runtime=${runtime}`,
                `--target=${electronVersion}`,
                ...(runtime === 'electron' ? ['--dist-url=https://electronjs.org/headers'] : []),
              ],
            ],
          ]
        : []),
    ];
    const failures = [];
    for (const [what, args] of attempts) {
      log(`boxdesk: building the SQLite addon for Electron ${electronVersion}: trying to ${what}…`);
      const result = spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8', timeout: 600_000 });
      if (result.status === 0 && fs.existsSync(built)) {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(built, target);
        return { binding: target };
      }
      failures.push(
        `${what}: ${result.error?.message ?? firstError(`${result.stderr ?? ''}\n${result.stdout ?? ''}`) ?? `exit ${result.status}`}`,
      );
    }
    if (!gyp) failures.push('compile it: node-gyp was not found beside npm');
    return { reason: `the SQLite addon could not be built for Electron ${electronVersion} (${failures.join('; ')})` };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
