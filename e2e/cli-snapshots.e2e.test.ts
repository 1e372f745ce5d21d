import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Snapshot } from '../shared/schemas/snapshots';
import { boxCli, ok, runBox } from '../test-support/cli-runner';
import { TEST_IMAGE, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { busyboxBinary, tinyRootfsTar } from '../test-support/snapshots';
import { teardown } from '../test-support/teardown';

const P = 'clisnap';
const workDir = tempDataDir('boxdesk-cli-tar-');
const tarFile = path.join(workDir, 'rootfs.tar');
let core: CoreProcess;
const box = boxCli(() => core, { project: P });

before(async () => {
  core = await startCoreProcess();
  fs.writeFileSync(tarFile, await tinyRootfsTar(await busyboxBinary(TEST_IMAGE), 'from-cli\n'));
});

after(() => teardown(core, { projects: [P], bases: true, paths: [workDir] }));

test('box snapshot create|ls|get|rm, box restore by name, box fork from a snapshot id', async () => {
  ok(await box('create', 'src'), 'create');
  assert.equal(ok(await box('snapshot', 'ls', 'src'), 'snapshot ls, none').stdout, 'no snapshots of box src\n');
  ok(await box('exec', 'src', '--', 'sh', '-c', 'echo v1 > /root/f'), 'exec');
  const snap = JSON.parse(
    ok(await box('snapshot', 'create', 'src', '--name', 'one', '-o', 'json'), 'snapshot create').stdout,
  ) as Snapshot;
  assert.match(snap.id, /^snap_/);
  assert.equal(snap.name, 'one');
  const table = ok(await box('snapshot', 'ls', 'src'), 'snapshot ls').stdout;
  assert.match(table, /^ID\s+NAME\s+BOX\s+SIZE\s+FREES\s+PARENT\s+AGE$/m);
  assert.match(table, new RegExp(`${snap.id}\\s+one\\s+src`));
  assert.match(ok(await box('snapshot', 'ls'), 'snapshot ls (project)').stdout, new RegExp(snap.id));
  assert.match(ok(await box('snapshot', 'get', snap.id), 'snapshot get').stdout, /^box:\s+src$/m);

  ok(await box('exec', 'src', '--', 'sh', '-c', 'echo v2 > /root/f'), 'exec');
  assert.match(ok(await box('restore', 'src', 'one'), 'restore').stdout, /restored to one \(running\)/);
  assert.equal(ok(await box('exec', 'src', '--', 'cat', '/root/f'), 'cat').stdout, 'v1\n');

  ok(await box('fork', snap.id, 'copy'), 'fork from a snapshot');
  assert.equal(ok(await box('exec', 'copy', '--', 'cat', '/root/f'), 'cat').stdout, 'v1\n');

  const refused = await box('snapshot', 'rm', snap.id);
  assert.equal(refused.code, 1, 'the API refused');
  assert.match(refused.stderr, /box "src"/);
  assert.match(refused.stderr, /box "copy"/);

  const unknown = await box('restore', 'src', 'nope');
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no snapshot named "nope"/);
});

test('box base create --from-snapshot|--from-box, import with a progress bar, rm', async () => {
  ok(await box('create', 'maker'), 'create');
  ok(await box('exec', 'maker', '--', 'sh', '-c', 'echo baked > /root/b'), 'exec');
  const snap = JSON.parse(ok(await box('snapshot', 'create', 'maker', '-o', 'json'), 'snapshot').stdout) as Snapshot;
  ok(await box('base', 'create', 'from-snap', '--from-snapshot', snap.id), 'base from snapshot');
  ok(await box('base', 'create', 'from-box', '--from-box', 'maker'), 'base from box');
  const usage = await box('base', 'create', 'nothing');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /exactly one of --from-snapshot, --from-box, --image/);
  ok(await box('create', 'seeded', '--base', 'from-box'), 'create from the base');
  assert.equal(ok(await box('exec', 'seeded', '--', 'cat', '/root/b'), 'cat').stdout, 'baked\n');

  // On a terminal with a width the import draws a transfer bar.
  const size = fs.statSync(tarFile).size;
  const imported = ok(
    await runBox(['--url', core.url, '--token', core.token, 'base', 'import', 'tiny', tarFile], {
      terminal: { cols: 120, rows: 40 },
    }),
    'base import',
  );
  assert.match(imported.stdout, /importing tiny \[/, 'the bar was drawn');
  assert.match(imported.stdout, /100%/);
  assert.match(imported.stdout, new RegExp(`base tiny imported \\(${(size / 1048576).toFixed(1)} MiB\\)`));
  const list = ok(await box('base', 'ls'), 'base ls').stdout;
  for (const name of ['from-snap', 'from-box', 'tiny']) assert.match(list, new RegExp(`^${name}\\s`, 'm'));
  ok(await box('create', 'tiny-box', '--base', 'tiny'), 'create from the imported base');
  assert.equal(ok(await box('exec', 'tiny-box', '--', 'cat', '/etc/marker'), 'cat').stdout, 'from-cli\n');

  const inUse = await box('base', 'rm', 'from-box');
  assert.equal(inUse.code, 1);
  assert.match(inUse.stderr, /box "seeded"/);
  ok(await box('rm', '-f', 'tiny-box', 'seeded'), 'rm boxes');
  ok(await box('base', 'rm', 'tiny', 'from-box', 'from-snap'), 'base rm');
  assert.doesNotMatch(ok(await box('base', 'ls'), 'base ls').stdout, /tiny|from-box|from-snap/);
});
