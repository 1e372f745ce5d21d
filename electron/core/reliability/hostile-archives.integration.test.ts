import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import type { Volume, VolumeBackup } from '../../../shared/schemas/volumes';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { gzipBomb, HOSTILE_CASES, sparseBomb, tarOf, type TarEntry } from '../../../test-support/hostile-archives';
import { instanceIdOf } from '../../../test-support/reliability';
import { busyboxBinary, imagesOfInstance, tinyRootfsTar } from '../../../test-support/snapshots';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { backupSettled, filesLost, manifest, writeStore } from '../../../test-support/volume-data';

// Hostile archives against every archive policy (docs/security.md, "Archives"), through the API:
// base imports (rootfs), volume backups written and restored (backup), and a box's files
// archive (files-archive). Each refused archive leaves nothing behind and changes no byte.

const MiB = 1024 * 1024;
const LIMIT = 16 * MiB;
const project = 'hostile-archives';
const P = `/v1/projects/${project}`;
const figures = { archives: 0, fiveXx: 0, bytesLost: 0 };

let t: TestCore;
let instance: string;
before(async () => {
  t = await startTestCore({ args: ['--upload-limit', String(LIMIT)] });
  instance = instanceIdOf(t.dataDir);
});
after(async () => {
  console.log(
    `hostile archives: ${figures.archives} archives tried, ${figures.fiveXx} answers 5xx, ${figures.bytesLost} files changed by a refused restore`,
  );
  for (const b of ['from-rootfs', 'writer']) await t.api('DELETE', `${P}/boxes/${b}`).catch(() => undefined);
  for (const v of ['kept', 'odd']) await t.api('DELETE', `${P}/volumes/${v}`).catch(() => undefined);
  await t.api('DELETE', '/v1/bases/setuid-root').catch(() => undefined);
  await t.close();
});

async function counted(res: Promise<Response>): Promise<Response> {
  const r = await res;
  figures.archives++;
  if (r.status >= 500) figures.fiveXx++;
  return r;
}

function importBase(name: string, body: Buffer): Promise<Response> {
  return counted(
    fetch(`${t.url}/v1/bases/${name}/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
      body,
    }),
  );
}

/** Every file in the data dir but the store's own: an import must leave no temp file. */
function dataDirFiles(): string[] {
  return (fs.readdirSync(t.dataDir, { recursive: true }) as string[])
    .filter((f) => !/^boxdesk\.db/.test(f) && fs.statSync(path.join(t.dataDir, f)).isFile())
    .sort();
}

async function sh(box: string, script: string): Promise<string> {
  const r = (await (await t.api('POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] })).json()) as {
    exit_code: number;
    stdout: string;
    stderr: string;
  };
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

test('rootfs: devices, fifos, escaping links and names, and bombs are refused with nothing left behind', async () => {
  const rootfs: TarEntry[] = [
    { name: './', type: 'directory', mode: 0o755 },
    { name: './etc/', type: 'directory' },
  ];
  const cases: { name: string; body: Buffer; status: number }[] = [
    ...(await Promise.all(
      HOSTILE_CASES.map(async (c) => ({ name: c.name, body: await tarOf([...rootfs, ...c.entries]), status: 400 })),
    )),
    { name: 'gzip bomb (64 MiB from ~70 KiB)', body: gzipBomb(64 * MiB), status: 413 },
    { name: 'GNU sparse bomb (4 GiB)', body: gzipSync(sparseBomb('gnu', 4096 * MiB)), status: 413 },
    { name: 'PAX sparse bomb (4 GiB)', body: sparseBomb('posix', 4096 * MiB), status: 413 },
  ];
  const images = (await imagesOfInstance(instance)).map((i) => i.Id).sort();
  const files = dataDirFiles();
  for (const c of cases) {
    assert.ok(c.body.length < LIMIT, `${c.name}: the body itself is under the limit`);
    const res = await importBase('hostile', c.body);
    const problem = (await res.json()) as { detail: string; code: string };
    assert.equal(res.status, c.status, `${c.name}: ${problem.detail}`);
    if (c.status === 413) assert.match(problem.detail, /unpacks to more than the 16 MiB limit \(--upload-limit\)/);
    else assert.match(problem.detail, /the root filesystem tar holds/);
  }
  assert.equal((await t.api('GET', '/v1/bases/hostile')).status, 404);
  const { items } = (await (await t.api('GET', '/v1/bases')).json()) as { items: { name: string }[] };
  assert.ok(!items.some((b) => b.name === 'hostile'), 'no base');
  assert.deepEqual((await imagesOfInstance(instance)).map((i) => i.Id).sort(), images, 'no image');
  assert.deepEqual(dataDirFiles(), files, 'no temp file');
});

test('rootfs: setuid binaries, absolute symlinks and hard links are a root filesystem, kept as they were', async () => {
  const tiny = await tinyRootfsTar(await busyboxBinary(TEST_IMAGE), 'setuid\n');
  const extra = await tarOf([
    { name: 'usr/', type: 'directory', mode: 0o755 },
    { name: 'usr/bin/', type: 'directory', mode: 0o755 },
    { name: 'usr/bin/su', mode: 0o4755, body: '#!/bin/sh\n' },
    { name: 'usr/bin/su-again', type: 'link', linkname: 'usr/bin/su' },
    { name: 'usr/bin/ls', type: 'symlink', linkname: '/bin/busybox' },
  ]);
  // One archive: the tiny root without its trailer, then the extra entries.
  const res = await importBase('setuid-root', gzipSync(Buffer.concat([tiny.subarray(0, tiny.length - 1024), extra])));
  assert.equal(res.status, 201, await res.clone().text());
  assert.equal((await t.api('POST', `${P}/boxes`, { name: 'from-rootfs', base: 'setuid-root' })).status, 201);
  assert.equal(
    await sh('from-rootfs', 'stat -c %a /usr/bin/su; stat -c %h /usr/bin/su; readlink /usr/bin/ls'),
    '4755\n2\n/bin/busybox\n',
  );
});

/** A backup file replaced by `bytes`, its recorded sha256 made to match: only the policy stands in the way. */
function forge(volumeId: string, backupId: string, bytes: Buffer): void {
  fs.writeFileSync(path.join(t.dataDir, 'backups', volumeId, `${backupId}.tar.gz`), bytes);
  writeStore(
    t.dataDir,
    'UPDATE volume_backups SET sha256 = ? WHERE id = ?',
    createHash('sha256').update(bytes).digest('hex'),
    backupId,
  );
}

test('backup: a forged archive holding any hostile entry is refused before the volume is touched', async () => {
  const vol = (await (await t.api('POST', `${P}/volumes`, { name: 'kept' })).json()) as Volume;
  assert.equal(
    (await t.api('POST', `${P}/boxes`, { name: 'writer', data_mounts: [{ name: 'kept', path: '/data' }] })).status,
    201,
  );
  await sh('writer', 'mkdir -p /data/d && echo precious > /data/d/f && head -c 200000 /dev/urandom > /data/blob');
  const started = (await (await t.api('POST', `${P}/volumes/kept/backups`)).json()) as VolumeBackup;
  const backup = await backupSettled(t.api, project, 'kept', started.id);
  assert.equal(backup.status, 'done', backup.reason ?? '');
  const beforeAll = await manifest(t.api, project, 'writer', '/data');
  assert.equal((await t.api('POST', `${P}/boxes/writer/stop`)).status, 200);

  const volumeRoot: TarEntry[] = [
    { name: './', type: 'directory', mode: 0o755 },
    { name: './x', body: 'x\n' },
  ];
  const forged = [
    ...HOSTILE_CASES.map((c) => ({ name: c.name, entries: c.entries })),
    { name: 'setuid file', entries: [{ name: 'su', mode: 0o4755, body: 'planted\n' }] },
  ];
  for (const c of forged) {
    forge(vol.id, backup.id, gzipSync(await tarOf([...volumeRoot, ...c.entries])));
    const res = await counted(t.api('POST', `${P}/volumes/kept/restore`, { backup_id: backup.id }));
    const problem = (await res.json()) as { detail: string };
    assert.equal(res.status, 409, `${c.name}: ${problem.detail}`);
    assert.match(problem.detail, new RegExp(`backup "${backup.id}" cannot be restored: the backup holds`), c.name);
    const clone = await counted(t.api('POST', `${P}/volumes`, { name: 'clone', from_backup: backup.id }));
    assert.equal(clone.status, 409, c.name);
    assert.equal((await t.api('GET', `${P}/volumes/clone`)).status, 404, `${c.name}: a refused clone leaves nothing`);
  }
  assert.equal((await t.api('POST', `${P}/boxes/writer/resume`)).status, 200);
  const lost = filesLost(beforeAll, await manifest(t.api, project, 'writer', '/data'));
  figures.bytesLost += lost.length;
  assert.deepEqual(lost, [], 'every byte of the volume is as it was');
});

test('backup: a volume holding what a backup may not carry makes a failed backup naming it, never a done one', async () => {
  await t.api('POST', `${P}/volumes`, { name: 'odd' });
  assert.equal((await t.api('POST', `${P}/volumes/odd/attach`, { box: 'writer', path: '/odd' })).status, 200);
  const plants = [
    { what: 'device node', script: 'mknod /odd/mem c 1 1', reason: /"\.\/mem", a character device node \(c 1 1\)/ },
    { what: 'fifo', script: 'mkfifo /odd/pipe', reason: /"\.\/pipe", a fifo/ },
    { what: 'setuid file', script: 'echo x > /odd/su && chmod 4755 /odd/su', reason: /"\.\/su", a setuid/ },
    {
      what: 'escaping link',
      script: 'ln -s ../../../etc /odd/out',
      reason: /"\.\/out", a symlink to "\.\.\/\.\.\/\.\.\/etc"/,
    },
  ];
  for (const p of plants) {
    await sh('writer', `rm -rf /odd/* && echo fine > /odd/ok && ${p.script}`);
    const started = (await (await counted(t.api('POST', `${P}/volumes/odd/backups`))).json()) as VolumeBackup;
    const b = await backupSettled(t.api, project, 'odd', started.id);
    assert.equal(b.status, 'failed', `${p.what}: a backup that cannot be restored is not done`);
    assert.match(b.reason ?? '', p.reason, p.what);
    assert.equal(b.available, false);
  }
});

test('files archive: only regular files and directories, permission bits only', async () => {
  await sh(
    'writer',
    'rm -rf /odd/* && mkdir /odd/d && echo a > /odd/d/a && chmod 4755 /odd/d/a && mkfifo /odd/p && ln -s / /odd/root && mknod /odd/mem c 1 1',
  );
  const res = await counted(t.api('GET', `${P}/boxes/writer/files/archive?path=/odd`));
  assert.equal(res.status, 200);
  const entries: { name: string; type: string; mode: number }[] = [];
  const extract = tar.extract();
  const done = (async () => {
    for await (const e of extract) {
      entries.push({ name: e.header.name, type: e.header.type, mode: e.header.mode });
      e.resume();
    }
  })();
  extract.end(Buffer.from(await res.arrayBuffer()));
  await done;
  assert.deepEqual(
    entries.map((e) => `${e.type} ${e.name} ${e.mode.toString(8)}`),
    ['directory d 755', 'file d/a 755'],
  );
});
