// One entry point bundled into dist/<dir>/<name>.mjs with esbuild, beside dist/<dir>/inputs.json:
// the sources it was made from, so a launcher runs the bundle only while none of them is newer
// (scripts/fresh-bundle.mjs, cli/bin/box.mjs). Dependencies stay in node_modules, or with
// `selfContained` go into the bundle too (but `external`, native modules), split so that what a
// command imports lazily (`await import(…)`) is its own file, read only when that command runs
// (`split: false` keeps one file, for code that finds files beside itself).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

export async function bundle({ entry, dir, name, selfContained = false, split = true, external = [], banner = '' }) {
  const outdir = path.join(root, 'dist', dir);
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    ...(selfContained
      ? {
          ...(split ? { splitting: true, chunkNames: 'chunks/[name]-[hash]' } : {}),
          // ws's optional native speed-ups: it runs without them.
          external: ['bufferutil', 'utf-8-validate', ...external],
          // jsonc-parser's main is a UMD build whose require() calls esbuild cannot follow: its ES build.
          alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
          banner: { js: `${banner}${REQUIRE_SHIM}` },
        }
      : { packages: 'external', ...(banner ? { banner: { js: banner } } : {}) }),
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/'));
  fs.writeFileSync(path.join(outdir, 'inputs.json'), JSON.stringify(inputs) + '\n');
  return result.metafile;
}
