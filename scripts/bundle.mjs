// One entry point bundled into dist/<dir>/<name>.mjs with esbuild (dependencies stay in
// node_modules), beside dist/<dir>/inputs.json: the sources it was made from, so a launcher runs
// the bundle only while none of them is newer (scripts/fresh-bundle.mjs, cli/bin/box.mjs).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function bundle({ entry, dir, name }) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: { [name]: entry },
    outdir: path.join('dist', dir),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/'));
  fs.writeFileSync(path.join(root, 'dist', dir, 'inputs.json'), JSON.stringify(inputs) + '\n');
}
