import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import tar from 'tar-stream';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { docker } from '../../../test-support/docker';
import { boxRows, instanceIdOf, removeInstanceLeftovers } from '../../../test-support/reliability';

// kill -9 of the core while an upload's bytes stream into a box, then a restart on the same data
// dir: the file is exactly as it was before the upload (an overwrite keeps the old bytes) and
// nothing the upload wrote is left in the box. Both ways a body arrives are cut: with
// Content-Length (streamed straight through; the client stops sending halfway) and chunked
// (spooled to the data dir first, then streamed into the box, with the client long done).

const PROJECT = 'crash';
const OLD = 'the old contents\n';
const MiB = 1024 * 1024;
const BOX = `/v1/projects/${PROJECT}/boxes/up`;

const dataDir = tempDataDir();
let core: CoreProcess;
let instance = '';
const figures = { kills: 0, leftByCrash: 0, leftAfterRestart: 0 };

before(async () => {
  core = await startCoreProcess({ dataDir, args: ['--rate-limit', '0'] });
  instance = instanceIdOf(dataDir);
  assert.equal((await api(core, 'POST', `/v1/projects/${PROJECT}/boxes`, { name: 'up' })).status, 201);
});

after(async () => {
  console.log(
    `upload crash: ${figures.kills} kills mid-upload, ${figures.leftByCrash} bytes the crashes left in the box, ${figures.leftAfterRestart} bytes left after the restarts`,
  );
  await core?.stop();
  if (instance) await removeInstanceLeftovers(instance);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function containerId(): string {
  const row = boxRows(dataDir).find((r) => r.project === PROJECT && r.name === 'up');
  assert.ok(row?.container_id, 'the box has a container');
  return row.container_id;
}

/** What the engine shows in `dir`, behind the core's back: entry names and sizes. */
async function entriesInBox(dir: string): Promise<Map<string, number>> {
  const archive = (await docker.getContainer(containerId()).getArchive({ path: dir })) as Readable;
  const found = new Map<string, number>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const name = header.name.split('/').slice(1).join('/');
    if (name && header.type === 'file') found.set(name, header.size ?? 0);
    stream.on('end', next);
    stream.resume();
  });
  archive.pipe(extract);
  await new Promise<void>((resolve, reject) => {
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  return found;
}

/** Bytes in a directory that are neither the old file nor the whole new one: what an upload cut short left. */
function partial(entries: Map<string, number>, file: string, total: number): number {
  let bytes = 0;
  for (const [name, size] of entries) if (!(name === file && (size === OLD.length || size === total))) bytes += size;
  return bytes;
}

/**
 * Whether the upload's bytes are reaching the box: the engine either shows them in `dir`, or is too
 * busy extracting them to answer within a moment (Docker runs one archive call per container at a time).
 */
async function midUpload(dir: string, file: string): Promise<boolean> {
  const probe = entriesInBox(dir).then((entries) => partial(entries, file, -1) > 0);
  probe.catch(() => undefined);
  return Promise.race([probe, new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 500))]);
}

/** Polls until `condition`, failing after `what` took a minute (no timing is asserted). */
async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts an upload of `total` bytes; with Content-Length only `sent` of them are sent, then it waits. */
function startUpload(target: string, total: number, mode: 'stalled' | 'chunked'): { flushed: Promise<void> } {
  const headers: Record<string, string> = {
    authorization: `Bearer ${core.token}`,
    'content-type': 'application/octet-stream',
  };
  if (mode === 'stalled') headers['content-length'] = String(total);
  const req = http.request(`${core.url}${BOX}/files?path=${target}`, { method: 'PUT', headers, agent: false });
  req.on('error', () => undefined); // the core is killed under it
  req.on('response', (res) => res.resume());
  const chunk = Buffer.alloc(MiB, 0x61);
  const chunks = mode === 'stalled' ? total / MiB / 2 : total / MiB;
  const flushed = (async () => {
    for (let i = 0; i < chunks; i++) await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
    if (mode === 'chunked') req.end();
  })();
  return { flushed };
}

/**
 * Writes the old file, starts an upload over it and kills the core once its bytes are reaching
 * the box; then restarts the core on the same data dir. True when the kill left a partial upload
 * in the box (a kill that came too early or too late proves nothing, and the caller tries again).
 */
async function crashOnce(file: string, mode: 'stalled' | 'chunked', total: number): Promise<boolean> {
  const dir = `/srv/${mode}`;
  const old = await fetch(`${core.url}${BOX}/files?path=${dir}/${file}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${core.token}`, 'content-type': 'application/octet-stream' },
    body: OLD,
  });
  assert.equal(old.status, 200, await old.text());
  const upload = startUpload(`${dir}/${file}`, total, mode);
  // Stalled: the client sent half and waits, so the box holds part of the file for as long as it takes.
  // Chunked: the core has the whole body in its spool and is streaming it into the box.
  if (mode === 'stalled') await upload.flushed;
  else await until(() => spooled() === total, 'the chunked body to be spooled');
  await until(() => midUpload(dir, file), "the upload's bytes to reach the box");
  await core.kill();
  figures.kills++;
  const left = partial(await entriesInBox(dir), file, total);
  figures.leftByCrash += left;
  core = await startCoreProcess({ dataDir, args: ['--rate-limit', '0'] });
  // The restarted core has cleaned up before it answers: the old file, or the whole new one, alone.
  const after = await entriesInBox(dir);
  figures.leftAfterRestart += partial(after, file, total);
  assert.deepEqual([...after.keys()], [file], `only ${file} is in ${dir}: ${JSON.stringify([...after])}`);
  const size = after.get(file);
  if (mode === 'stalled') assert.equal(size, OLD.length, 'an upload that never ended leaves the old file');
  else assert.ok(size === OLD.length || size === total, `${file} is the old file or the whole new one (${size} bytes)`);
  if (size === OLD.length)
    assert.equal(await (await api(core, 'GET', `${BOX}/files?path=${dir}/${file}`)).text(), OLD, 'the old bytes');
  return left > 0;
}

async function crashMidUpload(file: string, mode: 'stalled' | 'chunked'): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) if (await crashOnce(file, mode, 256 * MiB)) return;
  assert.fail('none of 3 kills landed while the upload was in the box, so nothing was proven');
}

function spooled(): number {
  const spool = path.join(dataDir, 'uploads');
  if (!fs.existsSync(spool)) return 0;
  return fs.readdirSync(spool).reduce((n, f) => n + fs.statSync(path.join(spool, f)).size, 0);
}

test('kill -9 while a Content-Length upload streams into the box: after the restart the old file is intact and nothing is left', async () => {
  await crashMidUpload('stalled.bin', 'stalled');
});

test('kill -9 while a chunked upload streams from the spool into the box: after the restart the old file is intact and nothing is left', async () => {
  await crashMidUpload('chunked.bin', 'chunked');
});
