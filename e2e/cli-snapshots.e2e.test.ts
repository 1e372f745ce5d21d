import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Box } from '../shared/schemas/box';
import type { Snapshot } from '../shared/schemas/snapshots';
import type { Base } from '../shared/schemas/system';
import { ROOT, TEST_IMAGE, api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { busyboxBinary, tinyRootfsTar } from '../test-support/snapshots';

const BOX_BIN = path.join(ROOT, 'cli', 'bin', 'box.mjs');
const EMPTY_DATA_DIR = tempDataDir('boxdesk-cli-snap-empty-');
const P = 'clisnap';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(SERVICE_|BOXDESK_|BOX_PROJECT)/.test(k)) env[k] = v;
  return { ...env, BOXDESK_DATA_DIR: EMPTY_DATA_DIR };
}

function spawnRun(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

let core: CoreProcess;
let tarFile: string;
const box = (...args: string[]) =>
  spawnRun(process.execPath, [BOX_BIN, '--url', core.url, '--token', core.token, '-p', P, ...args]);

function ok(run: Run, what: string): Run {
  assert.equal(run.code, 0, `${what} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

before(async () => {
  core = await startCoreProcess();
  tarFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-cli-tar-')), 'rootfs.tar');
  fs.writeFileSync(tarFile, await tinyRootfsTar(await busyboxBinary(TEST_IMAGE), 'from-cli\n'));
});

after(async () => {
  const { items } = (await (await api(core, 'GET', `/v1/projects/${P}/boxes`)).json()) as { items: Box[] };
  for (const b of items) await api(core, 'DELETE', `/v1/projects/${P}/boxes/${b.name}`);
  for (const b of ((await (await api(core, 'GET', '/v1/bases')).json()) as { items: Base[] }).items)
    if (b.name !== 'default') await api(core, 'DELETE', `/v1/bases/${b.name}`);
  const snaps = ((await (await api(core, 'GET', `/v1/projects/${P}/snapshots`)).json()) as { items: Snapshot[] }).items;
  for (const s of snaps.reverse()) await api(core, 'DELETE', `/v1/projects/${P}/snapshots/${s.id}`);
  await core?.stop();
  fs.rmSync(path.dirname(tarFile), { recursive: true, force: true });
  fs.rmSync(EMPTY_DATA_DIR, { recursive: true, force: true });
});

test('box snapshot create|ls|get|rm, box restore by name, box fork from a snapshot id', async () => {
  ok(await box('create', 'src'), 'create');
  ok(await box('exec', 'src', '--', 'sh', '-c', 'echo v1 > /root/f'), 'exec');
  const snap = JSON.parse(
    ok(await box('snapshot', 'create', 'src', '--name', 'one', '-o', 'json'), 'snapshot create').stdout,
  ) as Snapshot;
  assert.match(snap.id, /^snap_/);
  assert.equal(snap.name, 'one');
  const table = ok(await box('snapshot', 'ls', 'src'), 'snapshot ls').stdout;
  assert.match(table, /^ID\s+NAME\s+BOX\s+SIZE\s+PARENT\s+AGE$/m);
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
  const cmd = [process.execPath, BOX_BIN, '--url', core.url, '--token', core.token, 'base', 'import', 'tiny', tarFile]
    .map((a) => `'${a}'`)
    .join(' ');
  const imported = ok(await spawnRun('script', ['-qec', `stty cols 120 rows 40; ${cmd}`, '/dev/null']), 'base import');
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
  ok(await box('rm', 'tiny-box', 'seeded'), 'rm boxes');
  ok(await box('base', 'rm', 'tiny', 'from-box', 'from-snap'), 'base rm');
  assert.doesNotMatch(ok(await box('base', 'ls'), 'base ls').stdout, /tiny|from-box|from-snap/);
});
