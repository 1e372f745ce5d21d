import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Box } from '../shared/schemas/box';
import type { Volume, VolumeBackup, VolumeSnapshot } from '../shared/schemas/volumes';
import { boxCli, ok } from '../test-support/cli-runner';
import { startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

// The `box volume …` commands and `box create -v` driven as a process against a real core.

const P = 'clivol';
const workDir = tempDataDir('boxdesk-cli-vol-');
let core: CoreProcess;
const box = boxCli(() => core, { project: P });

before(async () => {
  core = await startCoreProcess();
});

after(() => teardown(core, { projects: [P], paths: [workDir] }));

test('volume create/ls/get, box create -v, attach/detach, snapshot, backup, download (verified), restore, clone, rm', async () => {
  assert.match(
    ok(await box('volume', 'create', 'data', '--size-gb', '3', '--retention', '2'), 'create').stdout,
    /volume data created/,
  );
  const listed = JSON.parse(ok(await box('volume', 'ls', '-o', 'json'), 'ls').stdout) as { items: Volume[] };
  assert.deepEqual(
    listed.items.map((v) => [v.name, v.size_gb]),
    [['data', 3]],
  );

  ok(await box('create', 'app', '-v', 'data:/data', '--wait'), 'create -v');
  const viewer = JSON.parse(
    ok(await box('create', 'viewer', '-v', 'data:/view:ro', '-o', 'json'), 'create -v ro').stdout,
  ) as Box;
  assert.deepEqual(viewer.data_mounts, [{ name: 'data', path: '/view', read_only: true }]);
  ok(await box('exec', 'app', '--', 'sh', '-c', 'echo first > /data/f'), 'write');
  assert.equal(ok(await box('exec', 'viewer', '--', 'cat', '/view/f'), 'read').stdout, 'first\n');
  assert.match(ok(await box('volume', 'get', 'data'), 'get').stdout, /app:\/data, viewer:\/view:ro/);

  const snap = JSON.parse(
    ok(await box('volume', 'snapshot', 'create', 'data', '-o', 'json'), 'snapshot').stdout,
  ) as VolumeSnapshot;
  const snapshots = ok(await box('volume', 'snapshot', 'ls', 'data'), 'snapshot ls').stdout;
  assert.match(snapshots, new RegExp(snap.id));
  assert.match(snapshots, /^ID\s+SIZE\s+FREES\s+METHOD\s+AGE/m, 'what deleting each would free is a column');
  assert.equal(typeof snap.exclusive_bytes, 'number', 'a snapshot on the store is measured');
  const backup = JSON.parse(
    ok(await box('volume', 'backup', 'create', 'data', '--wait', '-o', 'json'), 'backup').stdout,
  ) as VolumeBackup;
  assert.equal(backup.status, 'done');
  const out = path.join(workDir, 'data.tar.gz');
  const dl = ok(await box('volume', 'download', 'data', backup.id, '-O', out), 'download');
  assert.match(dl.stderr, /verified/);
  assert.equal(createHash('sha256').update(fs.readFileSync(out)).digest('hex'), backup.sha256);

  ok(await box('exec', 'app', '--', 'sh', '-c', 'echo second > /data/f'), 'change');
  const refused = await box('volume', 'restore', 'data', '--snapshot', snap.id);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /app \(running\)/);
  ok(await box('stop', 'app'), 'stop app');
  ok(await box('stop', 'viewer'), 'stop viewer');
  ok(await box('volume', 'restore', 'data', '--snapshot', snap.id), 'restore');
  ok(await box('resume', 'app'), 'resume');
  assert.equal(ok(await box('exec', 'app', '--', 'cat', '/data/f'), 'read back').stdout, 'first\n');

  ok(await box('volume', 'create', 'copy', '--from-backup', backup.id), 'clone');
  ok(await box('volume', 'attach', 'copy', 'app', '/copy', '--ro'), 'attach');
  assert.equal(ok(await box('exec', 'app', '--', 'cat', '/copy/f'), 'read clone').stdout, 'first\n');
  const busy = await box('volume', 'rm', 'copy');
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /mounted by box "app"/);
  ok(await box('volume', 'detach', 'copy', 'app'), 'detach');
  ok(await box('volume', 'rm', 'copy'), 'rm');
  assert.equal((await box('volume', 'restore', 'data')).code, 2, 'a usage error');
  assert.equal((await box('create', 'bad', '-v', 'nopath')).code, 2);
});
