import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Box } from '../shared/schemas/box';
import type { Volume, VolumeBackup, VolumeSnapshot } from '../shared/schemas/volumes';
import { ROOT, api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';

// The `box volume …` commands and `box create -v` driven as a process against a real core.

const BOX_BIN = path.join(ROOT, 'cli', 'bin', 'box.mjs');
const EMPTY_DATA_DIR = tempDataDir('boxdesk-cli-vol-empty-');
const P = 'clivol';

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

function spawnRun(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BOX_BIN, '--url', core.url, '--token', core.token, '-p', P, ...args], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let core: CoreProcess;
let workDir: string;
const box = (...args: string[]) => spawnRun(args);

function ok(run: Run, what: string): Run {
  assert.equal(run.code, 0, `${what} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

before(async () => {
  core = await startCoreProcess();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-cli-vol-'));
});

after(async () => {
  const { items } = (await (await api(core, 'GET', `/v1/projects/${P}/boxes`)).json()) as { items: Box[] };
  for (const b of items) await api(core, 'DELETE', `/v1/projects/${P}/boxes/${b.name}`);
  for (const v of ((await (await api(core, 'GET', `/v1/projects/${P}/volumes`)).json()) as { items: Volume[] }).items)
    await api(core, 'DELETE', `/v1/projects/${P}/volumes/${v.name}`);
  await core.stop();
  fs.rmSync(workDir, { recursive: true, force: true });
  fs.rmSync(EMPTY_DATA_DIR, { recursive: true, force: true });
});

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
  assert.match(ok(await box('volume', 'snapshot', 'ls', 'data'), 'snapshot ls').stdout, new RegExp(snap.id));
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
