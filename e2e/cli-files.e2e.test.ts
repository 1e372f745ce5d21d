import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';

const BOX_BIN = path.join(ROOT, 'cli', 'bin', 'box.mjs');
const PROJECT = 'clifiles';
const NAME = `cp-${crypto.randomBytes(3).toString('hex')}`;

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

let core: CoreProcess;
const work = tempDataDir('boxdesk-cli-files-');

function box(args: string[]): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(SERVICE_|BOXDESK_|BOX_PROJECT)/.test(k)) env[k] = v;
  Object.assign(env, { SERVICE_URL: core.url, BOXDESK_DATA_DIR: core.dataDir, BOX_PROJECT: PROJECT });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BOX_BIN, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
  });
}

function ok(run: Run, what: string): Run {
  assert.equal(run.code, 0, `${what} exited ${run.code}\nstdout: ${run.stdout.toString()}\nstderr: ${run.stderr}`);
  return run;
}

/** Every file under `dir` with its bytes' sha256 and mode, as relative paths. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const abs = path.join(e.parentPath, e.name);
    const rel = path.relative(dir, abs);
    out[rel] = e.isDirectory()
      ? 'dir'
      : `${crypto.createHash('sha256').update(fs.readFileSync(abs)).digest('hex')} ${(fs.statSync(abs).mode & 0o777).toString(8)}`;
  }
  return out;
}

before(async () => {
  core = await startCoreProcess();
  const res = await api(core, 'POST', `/v1/projects/${PROJECT}/boxes`, { name: NAME });
  assert.equal(res.status, 201, await res.text());
});
after(async () => {
  await api(core, 'DELETE', `/v1/projects/${PROJECT}/boxes/${NAME}`);
  await core.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('box cp of a directory into a box and back gives the same tree, bytes and modes', async () => {
  const src = path.join(work, 'src');
  fs.mkdirSync(path.join(src, 'nested', 'deeper'), { recursive: true });
  fs.mkdirSync(path.join(src, 'empty'));
  fs.writeFileSync(path.join(src, 'a.txt'), 'hello\n');
  fs.writeFileSync(path.join(src, 'nested', 'bin.dat'), crypto.randomBytes(3 * 1024 * 1024));
  fs.writeFileSync(path.join(src, 'nested', 'deeper', 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  ok(await box(['cp', src, `${NAME}:/data`]), 'cp up');
  const ls = ok(await box(['files', 'ls', NAME, '/data/nested']), 'files ls').stdout.toString();
  assert.match(ls, /bin\.dat/);
  assert.match(ls, /deeper/);
  assert.equal(ok(await box(['files', 'cat', NAME, '/data/a.txt']), 'files cat').stdout.toString(), 'hello\n');

  const back = path.join(work, 'back');
  ok(await box(['cp', `${NAME}:/data`, back]), 'cp down');
  assert.deepEqual(tree(back), tree(src));

  // Into an existing directory, under the source's own name, like cp.
  ok(await box(['files', 'mkdir', NAME, '/into']), 'files mkdir');
  ok(await box(['cp', src, `${NAME}:/into`]), 'cp into a directory');
  assert.equal(ok(await box(['files', 'cat', NAME, '/into/src/a.txt']), 'cat').stdout.toString(), 'hello\n');
  fs.mkdirSync(path.join(work, 'dl'));
  ok(await box(['cp', `${NAME}:/into/src/nested/bin.dat`, path.join(work, 'dl')]), 'cp a file into a local directory');
  assert.ok(
    fs.readFileSync(path.join(work, 'dl', 'bin.dat')).equals(fs.readFileSync(path.join(src, 'nested', 'bin.dat'))),
  );
});

test('box files rm, mkdir -p and changes; errors exit 1 with the detail, usage errors 2', async () => {
  ok(await box(['files', 'mkdir', '-p', NAME, '/x/y/z']), 'mkdir -p');
  const notEmpty = await box(['files', 'rm', NAME, '/x']);
  assert.equal(notEmpty.code, 1);
  assert.match(notEmpty.stderr, /recursive/);
  ok(await box(['files', 'rm', '-r', NAME, '/x']), 'rm -r');
  const changes = ok(await box(['files', 'changes', NAME]), 'changes').stdout.toString();
  assert.match(changes, /^A \/data$/m);
  assert.doesNotMatch(changes, /\/x/);
  const missing = await box(['files', 'cat', NAME, '/no/such/file']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /does not exist/);
  assert.equal((await box(['cp', 'a', 'b'])).code, 2, 'neither side in a box');
  assert.equal((await box(['cp', `${NAME}:relative`, 'b'])).code, 2, 'a box path must be absolute');
});
