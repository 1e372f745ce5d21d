import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import type { Volume, VolumeBackup } from '../../../shared/schemas/volumes';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { docker } from '../../../test-support/docker';
import { instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';
import { backupSettled, filesLost, manifest, readStore, writeStore } from '../../../test-support/volume-data';

// Restores never lose data and never take the core down: a missing or damaged archive is a 409
// with every byte kept, nothing recorded keeps the core from starting, a failed restore is never
// redone at the next start, and a kill -9 at any point of a restore leaves the volume wholly old
// or wholly restored. The same for a box restored from a snapshot whose image is gone.

const SEED = Number(process.env.RESTORE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const KILLS = Number(process.env.RESTORE_KILLS ?? 3);
const project = 'restore-safety';
const P = `/v1/projects/${project}`;
const dataDir = tempDataDir();
const figures = { archives: 0, fiveXx: 0, filesLost: 0, kills: 0, wholeOld: 0, wholeNew: 0 };

let core: CoreProcess;
let vol: Volume;
let instance: string;
const call = (method: string, pathname: string, body?: unknown) => api(core, method, pathname, body);

/** A small seeded generator (mulberry32), so a failing run's kill points can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function restart(how: 'kill' | 'stop'): Promise<void> {
  if (how === 'kill') {
    await core.kill();
    figures.kills++;
  } else await core.stop();
  core = await startCoreProcess({ dataDir });
}

async function attempt(method: string, pathname: string, body?: unknown): Promise<Response> {
  const res = await call(method, pathname, body);
  figures.archives++;
  if (res.status >= 500) figures.fiveXx++;
  return res;
}

async function sh(box: string, script: string): Promise<string> {
  const r = (await (await call('POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] })).json()) as {
    exit_code: number;
    stdout: string;
    stderr: string;
  };
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

/** The volume's files as the box `user` sees them (resumed for the read, stopped again: restores want it stopped). */
async function dataNow(): Promise<Map<string, string>> {
  assert.equal((await call('POST', `${P}/boxes/user/resume`)).status, 200);
  const m = await manifest(call, project, 'user', '/data');
  assert.equal((await call('POST', `${P}/boxes/user/stop`)).status, 200);
  return m;
}

function lost(before: Map<string, string>, after: Map<string, string>): string[] {
  const files = filesLost(before, after);
  figures.filesLost += files.length;
  return files;
}

async function backup(): Promise<VolumeBackup> {
  const started = (await (await call('POST', `${P}/volumes/data/backups`)).json()) as VolumeBackup;
  const done = await backupSettled(call, project, 'data', started.id);
  assert.equal(done.status, 'done', done.reason ?? '');
  return done;
}

const archiveOf = (b: VolumeBackup) => path.join(dataDir, 'backups', vol.id, `${b.id}.tar.gz`);

before(async () => {
  core = await startCoreProcess({ dataDir });
  instance = instanceIdOf(dataDir);
  vol = (await (await call('POST', `${P}/volumes`, { name: 'data' })).json()) as Volume;
  assert.equal(
    (await call('POST', `${P}/boxes`, { name: 'user', data_mounts: [{ name: 'data', path: '/data' }] })).status,
    201,
  );
  await sh(
    'user',
    'mkdir -p /data/a/b && for i in 1 2 3 4 5 6 7 8; do head -c 1000000 /dev/urandom > /data/a/blob$i; done; echo keep > /data/a/b/note',
  );
});

after(async () => {
  console.log(
    `restore safety: ${figures.archives} restores and clones tried, ${figures.fiveXx} answers 5xx, ${figures.filesLost} files lost, ${figures.kills} kills of the core (${figures.wholeOld} left wholly old, ${figures.wholeNew} wholly restored; seed ${SEED}, reproduce: RESTORE_SEED=${SEED})`,
  );
  await core?.stop();
  await removeInstanceLeftovers(instance);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a missing archive is a 409 naming the backup and reads available: false; nothing is touched', async () => {
  const gone = await backup();
  fs.rmSync(archiveOf(gone));
  assert.equal(
    ((await (await call('GET', `${P}/volumes/data/backups/${gone.id}`)).json()) as VolumeBackup).available,
    false,
  );
  assert.equal((await call('POST', `${P}/boxes/user/stop`)).status, 200);
  const before = await dataNow();
  for (const [route, body] of [
    [`${P}/volumes/data/restore`, { backup_id: gone.id }],
    [`${P}/volumes`, { name: 'clone', from_backup: gone.id }],
  ] as const) {
    const res = await attempt('POST', route, body);
    const problem = (await res.json()) as { detail: string };
    assert.equal(res.status, 409, problem.detail);
    assert.match(problem.detail, new RegExp(`backup "${gone.id}" is missing`));
  }
  assert.equal((await call('GET', `${P}/volumes/clone`)).status, 404, 'a refused clone leaves nothing');
  assert.equal((await call('GET', `${P}/volumes/data/backups/${gone.id}/download`)).status, 409);
  assert.deepEqual(lost(before, await dataNow()), [], 'every file is as it was');
});

test('a restore recorded for an archive that is gone cannot keep the core from starting, nor wipe the volume', async () => {
  const { items } = (await (await call('GET', `${P}/volumes/data/backups`)).json()) as { items: VolumeBackup[] };
  const missing = items.find((b) => b.status === 'done' && !fs.existsSync(archiveOf(b)))!;
  const before = await dataNow();
  // What a restore of that backup recorded when the core stopped in its middle (before fill-beside-and-swap).
  await core.stop();
  writeStore(
    dataDir,
    'UPDATE volumes SET pending_restore = ? WHERE id = ?',
    JSON.stringify({ backup_id: missing.id }),
    vol.id,
  );
  core = await startCoreProcess({ dataDir });
  assert.equal(readStore(dataDir, 'SELECT pending_restore FROM volumes WHERE id = ?', vol.id), null);
  assert.deepEqual(lost(before, await dataNow()), [], 'every file is as it was');
});

test('a truncated archive is refused before anything is touched, and the refusal is not redone at the next start', async () => {
  assert.equal((await call('POST', `${P}/boxes/user/resume`)).status, 200);
  const damaged = await backup();
  assert.equal((await call('POST', `${P}/boxes/user/stop`)).status, 200);
  fs.truncateSync(archiveOf(damaged), Math.floor(fs.statSync(archiveOf(damaged)).size / 2));
  const before = await dataNow();
  const res = await attempt('POST', `${P}/volumes/data/restore`, { backup_id: damaged.id });
  const problem = (await res.json()) as { detail: string };
  assert.equal(res.status, 409, problem.detail);
  assert.match(problem.detail, /does not match the sha256 recorded/);
  assert.deepEqual(lost(before, await dataNow()), []);
  await restart('stop');
  assert.equal(readStore(dataDir, 'SELECT pending_restore FROM volumes WHERE id = ?', vol.id), null);
  assert.deepEqual(lost(before, await dataNow()), [], 'nothing replayed at start');
});

test(`kill -9 at random points of a restore: the volume is wholly old or wholly restored (seed ${SEED})`, async () => {
  const next = random(SEED);
  assert.equal((await call('POST', `${P}/boxes/user/resume`)).status, 200);
  const restoredTo = await backup();
  const restored = await manifest(call, project, 'user', '/data');
  for (let i = 0; i < KILLS; i++) {
    assert.equal((await call('POST', `${P}/boxes/user/resume`)).status, 200);
    await sh('user', `echo ${i} > /data/generation && head -c 500000 /dev/urandom > /data/a/blob${1 + (i % 8)}`);
    assert.equal((await call('POST', `${P}/boxes/user/stop`)).status, 200);
    const old = await dataNow();
    const delay = Math.floor(next() * 4000);
    const pending = call('POST', `${P}/volumes/data/restore`, { backup_id: restoredTo.id }).catch(() => null);
    figures.archives++;
    await new Promise((r) => setTimeout(r, delay));
    await restart('kill');
    await pending;
    const now = await dataNow();
    const wholeOld = filesLost(old, now).length === 0 && now.size === old.size;
    const wholeNew = filesLost(restored, now).length === 0 && now.size === restored.size;
    assert.ok(
      wholeOld || wholeNew,
      `killed ${delay} ms into the restore: the volume is neither the old data nor the backup`,
    );
    if (wholeOld) figures.wholeOld++;
    else figures.wholeNew++;
    assert.equal(readStore(dataDir, 'SELECT pending_restore FROM volumes WHERE id = ?', vol.id), null);
    const engineVolumes = (await docker.listVolumes({ filters: { label: [`boxdesk.id=${vol.id}`] } })).Volumes;
    assert.equal(engineVolumes.length, 1, 'one engine volume per record: the other half of the restore went');
  }
  const res = await attempt('POST', `${P}/volumes/data/restore`, { backup_id: restoredTo.id });
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(filesLost(restored, await dataNow()), [], 'a restore left alone completes');
});

test('a box restore from a snapshot whose image is gone is a 409; the box keeps its root, now and after a restart', async () => {
  assert.equal((await call('POST', `${P}/boxes`, { name: 'rooted' })).status, 201);
  await sh('rooted', 'echo before > /root-marker');
  const snap = (await (await call('POST', `${P}/boxes/rooted/snapshots`, {})).json()) as Snapshot;
  await sh('rooted', 'echo after > /root-marker');
  const image = readStore(dataDir, 'SELECT image FROM snapshots WHERE id = ?', snap.id) as string;
  await docker.getImage(image).remove({ force: true });
  const box = (await (await call('GET', `${P}/boxes/rooted`)).json()) as Box;
  const containerBefore = readStore(dataDir, 'SELECT container_id FROM boxes WHERE id = ?', box.id);
  const res = await attempt('POST', `${P}/boxes/rooted/restore`, { snapshot_id: snap.id });
  const problem = (await res.json()) as { detail: string };
  assert.equal(res.status, 409, problem.detail);
  assert.match(problem.detail, /is missing from the engine/);
  for (const when of ['at once', 'after a restart']) {
    if (when !== 'at once') await restart('kill');
    const now = (await (await call('GET', `${P}/boxes/rooted`)).json()) as Box;
    assert.equal(now.status, 'running', `${when}: ${now.status_reason ?? ''}`);
    assert.equal(readStore(dataDir, 'SELECT container_id FROM boxes WHERE id = ?', box.id), containerBefore, when);
    assert.equal(await sh('rooted', 'cat /root-marker'), 'after\n', `${when}: the root is as it was`);
  }
});
