import assert from 'node:assert/strict';
import type { Box } from '../shared/schemas/box';
import type { Volume } from '../shared/schemas/volumes';
import { deleteBoxes, type TestCore } from './test-core';

// What the volume tests prove the same on either engine (the real one in the integration tests,
// the in-memory one in volumes.test.ts), written once and run against both.

type ExecResult = { exit_code: number; stdout: string; stderr: string };

/** The body of a response that must have `status`. */
export async function ok<T>(res: Response, status = 200): Promise<T> {
  assert.equal(res.status, status, await res.clone().text());
  return (await res.json()) as T;
}

/** Runs `script` with sh in a box of project path `P` (`/v1/projects/<p>`); the exec must answer 200. */
export async function shIn(t: TestCore, P: string, box: string, script: string): Promise<ExecResult> {
  return ok(await t.api('POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] }));
}

/** After a file's tests: the project's boxes, then its volumes. */
export async function deleteBoxesAndVolumes(t: TestCore, P: string): Promise<void> {
  await deleteBoxes(t, `${P}/boxes`);
  const vols = ((await (await t.api('GET', `${P}/volumes`)).json()) as { items: Volume[] }).items;
  for (const v of vols) await t.api('DELETE', `${P}/volumes/${v.name}`);
}

/**
 * Volume "shared" (made by the caller) written through one box is read from another, a
 * read-only mount refuses writes, the volume lists its mounts and cannot go while mounted,
 * and its data outlives the box that wrote it.
 */
export async function sharedDataScenario(t: TestCore, P: string): Promise<void> {
  const sh = (box: string, script: string) => shIn(t, P, box, script);
  const writer = await ok<Box>(
    await t.api('POST', `${P}/boxes`, { name: 'writer', data_mounts: [{ name: 'shared', path: '/data' }] }),
    201,
  );
  assert.deepEqual(writer.data_mounts, [{ name: 'shared', path: '/data', read_only: false }]);
  assert.equal((await sh('writer', 'echo hello > /data/greeting && cat /data/greeting')).stdout, 'hello\n');
  await ok<Box>(
    await t.api('POST', `${P}/boxes`, {
      name: 'reader',
      data_mounts: [{ name: 'shared', path: '/mnt/in/', read_only: true }],
    }),
    201,
  );
  assert.equal((await sh('reader', 'cat /mnt/in/greeting')).stdout, 'hello\n');
  const refused = await sh('reader', 'echo x > /mnt/in/other');
  assert.notEqual(refused.exit_code, 0);
  assert.match(refused.stderr, /read-only/i);

  const listed = await ok<Volume>(await t.api('GET', `${P}/volumes/shared`));
  assert.deepEqual(listed.mounts, [
    { box: 'reader', path: '/mnt/in', read_only: true },
    { box: 'writer', path: '/data', read_only: false },
  ]);
  const busy = await t.api('DELETE', `${P}/volumes/shared`);
  assert.equal(busy.status, 409);
  assert.match(((await busy.json()) as { detail: string }).detail, /"reader", "writer"/);

  assert.equal((await t.api('DELETE', `${P}/boxes/writer`)).status, 204);
  assert.equal((await sh('reader', 'cat /mnt/in/greeting')).stdout, 'hello\n');
  await ok<Box>(
    await t.api('POST', `${P}/boxes`, { name: 'writer2', data_mounts: [{ name: 'shared', path: '/data' }] }),
    201,
  );
  assert.equal((await sh('writer2', 'cat /data/greeting')).stdout, 'hello\n');
}

/**
 * A mount of an unknown volume is a 404; each bad set of mounts of volume "paths" (made here) is a
 * 400 (`more` adds to the common ones); box "nomount" is never made.
 */
export async function badMountsScenario(t: TestCore, P: string, more: { name: string; path: string }[][] = []) {
  const missing = await t.api('POST', `${P}/boxes`, {
    name: 'nomount',
    data_mounts: [{ name: 'nope', path: '/data' }],
  });
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { detail: string }).detail, /volume "nope" not found/);
  await ok(await t.api('POST', `${P}/volumes`, { name: 'paths' }), 201);
  for (const data_mounts of [
    [{ name: 'paths', path: '/' }],
    [{ name: 'paths', path: '/proc/x' }],
    [{ name: 'paths', path: '/a/../b' }],
    [
      { name: 'paths', path: '/a' },
      { name: 'paths', path: '/b' },
    ],
    ...more,
  ]) {
    const res = await t.api('POST', `${P}/boxes`, { name: 'nomount', data_mounts });
    assert.equal(res.status, 400, JSON.stringify(data_mounts));
  }
  assert.equal((await t.api('GET', `${P}/boxes/nomount`)).status, 404);
}
