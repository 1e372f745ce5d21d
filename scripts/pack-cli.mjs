// `npm run pack:cli [-- --pack-destination DIR]`: the `box` CLI as a package of its own,
// @boxdesk/cli, that `npm install -g` of its tarball turns into a working `box` with nothing else
// installed: the self-contained bundle (scripts/build-cli.mjs; rebuilt here when a source is newer),
// its lazily read chunks, cli/README.md and the licence. `box serve` needs the core, which this
// package does not carry: it says so. Prints the tarball's path.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './bundle.mjs';
import { freshBundle } from './fresh-bundle.mjs';

if (!freshBundle('cli', 'box')) execFileSync(process.execPath, [path.join(root, 'scripts', 'build-cli.mjs')]);

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const built = path.join(root, 'dist', 'cli');
const stage = path.join(root, 'dist', 'cli-package');
fs.rmSync(stage, { recursive: true, force: true });
fs.cpSync(built, stage, { recursive: true, filter: (f) => !f.endsWith('.map') && !f.endsWith('inputs.json') });
fs.copyFileSync(path.join(root, 'cli', 'README.md'), path.join(stage, 'README.md'));
fs.copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
fs.writeFileSync(
  path.join(stage, 'package.json'),
  JSON.stringify(
    {
      name: '@boxdesk/cli',
      version: manifest.version,
      description: 'box: the command line of Boxdesk (disposable Linux boxes on your workstation).',
      license: manifest.license,
      type: 'module',
      bin: { box: 'box.mjs' },
      engines: manifest.engines,
    },
    null,
    2,
  ) + '\n',
);
fs.chmodSync(path.join(stage, 'box.mjs'), 0o755);

const at = process.argv.indexOf('--pack-destination');
const destination = at === -1 ? path.join(root, 'dist') : path.resolve(process.argv[at + 1]);
const [packed] = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--pack-destination', destination], { cwd: stage, encoding: 'utf8' }),
);
process.stdout.write(path.join(destination, packed.filename) + '\n');
