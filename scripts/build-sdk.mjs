// Builds the @boxdesk/sdk package in sdk/dist: index.js, one ES module bundled with esbuild from
// sdk/src and the shared/ client it uses (so the package needs nothing else of this repo), and
// index.d.ts, whose declarations tsc emits from the same sources. Its only run-time dependency
// is eventsource-parser; @sinclair/typebox is there for the types the schemas declare.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { root } from './bundle.mjs';

const sdk = path.join(root, 'sdk');
const dist = path.join(sdk, 'dist');
const RUNTIME_DEPENDENCIES = ['eventsource-parser'];

fs.rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ['sdk/src/index.ts'],
  outfile: 'sdk/dist/index.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  packages: 'external',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});
const imports = result.metafile.outputs['sdk/dist/index.js'].imports.map((i) => i.path);
const stray = imports.filter((p) => !p.startsWith('node:') && !RUNTIME_DEPENDENCIES.includes(p));
if (stray.length > 0)
  throw new Error(`the SDK bundle imports ${stray.join(', ')}: add it to sdk/package.json or drop it`);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(sdk, 'tsconfig.dts.json')], { stdio: 'inherit' });

// Node's ESM resolution (a consumer's "moduleResolution": "nodenext") wants full specifiers.
const types = path.join(dist, 'types');
for (const file of fs.readdirSync(types, { recursive: true })) {
  if (!file.endsWith('.d.ts')) continue;
  const full = path.join(types, file);
  const text = fs
    .readFileSync(full, 'utf8')
    .replace(/(from |import\()(['"])(\.\.?\/[^'"]+)\2/g, (_, lead, quote, spec) => {
      const target = path.resolve(path.dirname(full), spec);
      const ext = fs.existsSync(`${target}.d.ts`) ? '.js' : '/index.js';
      return `${lead}${quote}${spec}${ext}${quote}`;
    });
  fs.writeFileSync(full, text);
}
fs.writeFileSync(path.join(dist, 'index.d.ts'), "export * from './types/sdk/src/index.js';\n");

// What it was made from (the declarations name schemas the bundle does not), outside the
// package: the pack test rebuilds when one is newer.
const inputs = ['sdk/src', 'shared'].flatMap((dir) =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f)),
);
fs.mkdirSync(path.join(root, 'dist', 'sdk'), { recursive: true });
fs.writeFileSync(path.join(root, 'dist', 'sdk', 'inputs.json'), JSON.stringify(inputs) + '\n');
