import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { boxCli, ok } from '../test-support/cli-runner';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

const PROJECT = 'clifiles';
const NAME = `cp-${crypto.randomBytes(3).toString('hex')}`;
const work = tempDataDir('boxdesk-cli-files-');
let core: CoreProcess;
const run = boxCli(() => core, { project: PROJECT, connection: 'local', cwd: work });
const box = (args: string[]) => run(...args);

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
after(() => teardown(core, { projects: [PROJECT], paths: [work] }));

test('box cp of a directory into a box and back gives the same tree, bytes and modes', async () => {
  const src = path.join(work, 'src');
  fs.mkdirSync(path.join(src, 'nested', 'deeper'), { recursive: true });
  fs.mkdirSync(path.join(src, 'empty'));
  fs.writeFileSync(path.join(src, 'a.txt'), 'hello\n');
  fs.writeFileSync(path.join(src, 'nested', 'bin.dat'), crypto.randomBytes(3 * 1024 * 1024));
  fs.writeFileSync(path.join(src, 'nested', 'deeper', 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  ok(await box(['cp', src, `${NAME}:/data`]), 'cp up');
  const ls = ok(await box(['files', 'ls', NAME, '/data/nested']), 'files ls').stdout;
  assert.match(ls, /bin\.dat/);
  assert.match(ls, /deeper/);
  assert.equal(ok(await box(['files', 'cat', NAME, '/data/a.txt']), 'files cat').stdout, 'hello\n');

  const back = path.join(work, 'back');
  ok(await box(['cp', `${NAME}:/data`, back]), 'cp down');
  assert.deepEqual(tree(back), tree(src));

  // Into an existing directory, under the source's own name, like cp.
  ok(await box(['files', 'mkdir', NAME, '/into']), 'files mkdir');
  ok(await box(['cp', src, `${NAME}:/into`]), 'cp into a directory');
  assert.equal(ok(await box(['files', 'cat', NAME, '/into/src/a.txt']), 'cat').stdout, 'hello\n');
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
  assert.match(notEmpty.stderr, /pass -r\/--recursive/, 'the hint names the flag, not the query parameter');
  ok(await box(['files', 'rm', '-r', NAME, '/x']), 'rm -r');
  const changes = ok(await box(['files', 'changes', NAME]), 'changes').stdout;
  assert.match(changes, /^A \/data$/m);
  assert.doesNotMatch(changes, /\/x/);
  const missing = await box(['files', 'cat', NAME, '/no/such/file']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /does not exist/);
  // A trailing slash names a directory, as for cp: never a file called "newdir".
  fs.writeFileSync(path.join(work, 'one.txt'), 'one\n');
  const intoMissing = await box(['cp', path.join(work, 'one.txt'), `${NAME}:/newdir/`]);
  assert.equal(intoMissing.code, 1);
  assert.match(intoMissing.stderr, /\/newdir\/ does not exist; make it first \(box files mkdir -p/);
  assert.equal((await box(['files', 'cat', NAME, '/newdir'])).code, 1, 'no file named newdir');
  ok(await box(['files', 'mkdir', NAME, '/newdir']), 'mkdir');
  ok(await box(['cp', path.join(work, 'one.txt'), `${NAME}:/newdir/`]), 'cp into it');
  assert.equal(ok(await box(['files', 'cat', NAME, '/newdir/one.txt']), 'cat').stdout, 'one\n');
  const downMissing = await box(['cp', `${NAME}:/newdir/one.txt`, path.join(work, 'nowhere') + '/']);
  assert.equal(downMissing.code, 1);
  assert.match(downMissing.stderr, /nowhere\/" does not exist/);
  assert.equal(fs.existsSync(path.join(work, 'nowhere')), false);
  assert.equal((await box(['cp', 'a', 'b'])).code, 2, 'neither side in a box');
  assert.equal((await box(['cp', `${NAME}:relative`, 'b'])).code, 2, 'a box path must be absolute');
});

test('box cp of a symlink loop says it is a loop, and writes nothing', async () => {
  const made = await api(core, 'POST', `/v1/projects/${PROJECT}/boxes/${NAME}/exec`, {
    command: ['sh', '-c', 'ln -s /loop-b /loop-a && ln -s /loop-a /loop-b'],
  });
  assert.equal(((await made.json()) as { exit_code: number }).exit_code, 0);
  const down = await box(['cp', `${NAME}:/loop-a`, path.join(work, 'looped')]);
  assert.equal(down.code, 1, down.stderr);
  assert.match(down.stderr, /"\/loop-a" is a symbolic link loop/);
  assert.equal(fs.existsSync(path.join(work, 'looped')), false);
  fs.writeFileSync(path.join(work, 'up.txt'), 'up\n');
  const up = await box(['cp', path.join(work, 'up.txt'), `${NAME}:/loop-a/up.txt`]);
  assert.equal(up.code, 1, up.stderr);
  assert.match(up.stderr, /"\/loop-a" is a symbolic link loop/);
});
