// Bundles test files for scripts/run-tests.mjs: each file and the sources it imports become one
// ES module under .tsbuild/tests/ (dependencies stay in node_modules), so a test process loads one
// file instead of tsx compiling and resolving a few hundred (measured here: importing the core
// took 1.4-1.7 s through tsx, 0.6-0.85 s as a bundle). Every test file of the engine lane pays that
// once, and a file that runs a core in-process pays it for the core too.
//
// A bundle must behave as its sources do through tsx: `import.meta.url`, `.dirname` and
// `.filename` are replaced in each source by that source's own location (a bundle's would be
// .tsbuild/tests/…), and inline source maps point stack traces and failures at the sources.
import { build } from 'esbuild';
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './bundle.mjs';

// A lane of its own (BOXDESK_TEST_LANE, e.g. the Podman lane beside the engine lane) bundles into
// folders of its own: a runner starts by clearing its folders.
const LANE = process.env.BOXDESK_TEST_LANE ?? 'tests';
const OUT = path.join(root, '.tsbuild', LANE);
const SCRIPTS = path.join(root, '.tsbuild', `${LANE}-scripts`);

/** esbuild plugin: each of our sources (TypeScript, and scripts/*.mjs) gets its own import.meta location, as a literal. */
const ownLocation = {
  name: 'own-location',
  setup(b) {
    b.onLoad({ filter: /\.(ts|tsx|mts|mjs|js)$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      const own = {
        url: JSON.stringify(pathToFileURL(args.path).href),
        dirname: JSON.stringify(path.dirname(args.path)),
        filename: JSON.stringify(args.path),
      };
      const contents = source.replace(/import\.meta\.(url|dirname|filename)\b/g, (match, key, at) =>
        inString(source, at) ? match : own[key],
      );
      const loader = args.path.endsWith('.tsx') ? 'tsx' : /\.m?ts$/.test(args.path) ? 'ts' : 'js';
      return { contents, loader, resolveDir: path.dirname(args.path) };
    });
  },
};

/** Whether offset `at` is inside a quoted string on its line (scripts/bundle.mjs writes `import.meta.url` into one). */
function inString(source, at) {
  const line = source.slice(source.lastIndexOf('\n', at) + 1, at);
  return ['"', "'", '`'].some((q) => line.split(q).length % 2 === 0);
}

const options = {
  absWorkingDir: root,
  outbase: root,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: 'inline',
  sourcesContent: false,
  plugins: [ownLocation],
  logLevel: 'warning',
};

/**
 * Bundles a script a test runs as a process of its own (`node BUNDLE`, no tsx), once per test
 * process: answers the bundle's path. `file` is relative to the repository.
 */
export function bundleScript(file) {
  let made = scripts.get(file);
  if (!made) {
    const outdir = path.join(SCRIPTS, String(process.pid));
    made = build({ ...options, entryPoints: [file], outdir }).then(() =>
      path.join(outdir, file.replace(/\.(ts|tsx|mts)$/, '.mjs')),
    );
    scripts.set(file, made);
  }
  return made;
}
const scripts = new Map();

/**
 * Bundles `files` (paths relative to the repository) and answers the bundle of each, in the same
 * order. Throws with esbuild's messages when a file cannot be bundled.
 */
export async function bundleTests(files) {
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.rmSync(SCRIPTS, { recursive: true, force: true });
  await build({ ...options, entryPoints: files, outdir: OUT });
  return files.map((f) => path.join(OUT, f.replace(/\.(ts|tsx|mts)$/, '.mjs')));
}

const maps = new Map();

/**
 * Where line `line`, column `column` (1-based, as the test runner reports a test's place) of the
 * bundle `file` comes from: the source file (relative to the repository) and its line and column,
 * or null for a place no source map names.
 */
export function sourceLocation(file, line, column) {
  if (!maps.has(file)) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const inline = /\/\/# sourceMappingURL=data:application\/json;base64,(\S+)\s*$/.exec(text);
    maps.set(file, inline ? new SourceMap(JSON.parse(Buffer.from(inline[1], 'base64').toString('utf8'))) : null);
  }
  const entry = maps.get(file)?.findEntry(line - 1, column - 1);
  if (!entry?.originalSource) return null;
  const source = entry.originalSource.startsWith('file:')
    ? new URL(entry.originalSource).pathname
    : path.resolve(path.dirname(file), entry.originalSource);
  return { file: path.relative(root, source), line: entry.originalLine + 1, column: entry.originalColumn + 1 };
}
