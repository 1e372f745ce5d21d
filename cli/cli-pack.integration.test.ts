import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { cliEnv } from '../test-support/cli-runner';
import { ROOT, startCoreProcess, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

// The CLI as a package of its own (`npm run pack:cli`): installed globally into an empty prefix
// with npm --offline (it has no dependencies to fetch), the `box` it installs runs from there,
// with nothing of this repository (nor tsx) reachable, against a real core.

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-cli-pack-'));
const prefix = path.join(work, 'global');
const box = path.join(prefix, 'bin', 'box');
const project = `clipack-${crypto.randomBytes(3).toString('hex')}`;
let core: CoreProcess | undefined;
let tarball = '';

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  // From an empty directory: nothing there to resolve from.
  return spawnSync(box, args, { cwd: work, encoding: 'utf8', env: cliEnv(env) });
}

before(async () => {
  tarball = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack-cli.mjs'), '--pack-destination', work], {
    encoding: 'utf8',
  }).trim();
  const r = spawnSync('npm', ['install', '-g', '--prefix', prefix, tarball, '--offline', '--no-audit', '--no-fund'], {
    cwd: work,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  core = await startCoreProcess();
});

after(() => teardown(core, { projects: [project], paths: [work] }));

test('the package depends on nothing and installs only itself', () => {
  const installed = path.join(prefix, 'lib', 'node_modules', '@boxdesk', 'cli');
  const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(manifest.dependencies, undefined);
  assert.deepEqual(manifest.bin, { box: 'box.mjs' });
  assert.ok(fs.existsSync(path.join(installed, 'LICENSE')));
  assert.deepEqual(fs.readdirSync(path.join(prefix, 'lib', 'node_modules')), ['@boxdesk']);
  assert.equal(fs.existsSync(path.join(installed, 'node_modules')), false);
});

test('the installed box prints its help and drives a real core (YAML and all)', () => {
  const help = run(['--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: box /);

  const env = { SERVICE_URL: core!.url, SERVICE_TOKEN: core!.token, BOX_PROJECT: project };
  const created = run(['create', 'packed', '--wait', '-o', 'yaml'], env);
  assert.equal(created.status, 0, created.stderr);
  assert.match(created.stdout, /^name: packed$/m);
  assert.match(created.stdout, /^status: running$/m);
  const exec = run(['exec', 'packed', '--', 'echo', 'from the packed cli'], env);
  assert.equal(exec.stdout, 'from the packed cli\n', exec.stderr);
  const listed = run(['ls', '-o', 'json'], env);
  assert.deepEqual(
    (JSON.parse(listed.stdout) as { items: { name: string }[] }).items.map((b) => b.name),
    ['packed'],
  );
});

test('box serve says it needs a checkout or the app, and exits 2', () => {
  const r = run(['serve']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /box serve runs the core of a Boxdesk checkout or app/);
});
