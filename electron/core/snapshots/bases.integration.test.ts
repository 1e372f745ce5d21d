import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Base } from '../../../shared/schemas/system';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { docker } from '../../../test-support/docker';
import { busyboxBinary, type SnapshotApi, tinyRootfsTar, withSnapshotCore } from '../../../test-support/snapshots';
import { SseClient } from '../../../test-support/sse';
import type { TestCore } from '../../../test-support/test-core';

let t: TestCore;
let s: SnapshotApi;
withSnapshotCore('bases', (core, api) => ([t, s] = [core, api]));

const detail = async (res: Response, status: number): Promise<string> =>
  (await s.expect<{ detail: string }>(res, status)).detail;

/** A base made from a box of this file's project (its root at this instant). */
const baseFromBox = async (name: string, box: string): Promise<Base> =>
  s.expect<Base>(await t.api('POST', '/v1/bases', { name, from_box: box, project: 'bases' }), 201);

test('a base made from a snapshot seeds new boxes; each dependant blocks the delete below it, named', async () => {
  await s.create('golden');
  await s.sh('golden', 'echo tooling > /root/installed');
  const snap = await s.snapshot('golden', 'gold');
  const base = await s.expect<Base>(
    await t.api('POST', '/v1/bases', { name: 'golden-base', from_snapshot: snap.id }),
    201,
  );
  assert.equal(base.from_snapshot, snap.id);
  assert.ok(base.image_id);
  const seeded = await s.create('seeded', { base: 'golden-base' });
  assert.equal(seeded.base, 'golden-base');
  assert.equal(await s.read('seeded', '/root/installed'), 'tooling\n');

  assert.match(
    await detail(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 409),
    /base "golden-base"/,
  );
  assert.match(await detail(await t.api('DELETE', '/v1/bases/golden-base'), 409), /box "seeded"/);
  await s.remove('seeded');
  await s.expect(await t.api('DELETE', '/v1/bases/golden-base'), 204);
  await s.expect(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 204);
});

test('a snapshot is kept while a box restored from it, a fork of it or a snapshot of such a root needs it', async () => {
  await s.create('parent');
  const snap = await s.snapshot('parent', 'p1');
  await s.restore('parent', snap.id);
  assert.match(await detail(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 409), /box "parent"/);
  const child = await s.snapshot('parent', 'p2');
  await s.create('offshoot', { fork: snap.id });
  const msg = await detail(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 409);
  assert.match(msg, /box "parent"/);
  assert.match(msg, /box "offshoot"/);
  assert.match(msg, /snapshot "p2"/);
  await s.remove('offshoot');
  await s.restore('parent', child.id);
  // Still the child snapshot descends from it.
  assert.match(await detail(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 409), /snapshot "p2"/);
  await s.remove('parent');
  await s.expect(await t.api('DELETE', `/v1/projects/bases/snapshots/${child.id}`), 204);
  await s.expect(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 204);
});

test('a base made from a box is its root at that instant', async () => {
  await s.create('maker');
  await s.sh('maker', 'echo baked > /root/baked');
  await baseFromBox('baked', 'maker');
  await s.sh('maker', 'echo later > /root/baked');
  await s.create('eater', { base: 'baked' });
  assert.equal(await s.read('eater', '/root/baked'), 'baked\n');
  const snap = await s.snapshot('eater');
  assert.equal(snap.parent_id, 'baked', 'a snapshot of a box on a base descends from the base');
  await s.remove('eater');
  assert.match(await detail(await t.api('DELETE', '/v1/bases/baked'), 409), new RegExp(`snapshot "${snap.name}"`));
  await s.expect(await t.api('DELETE', `/v1/projects/bases/snapshots/${snap.id}`), 204);
  await s.expect(await t.api('DELETE', '/v1/bases/baked'), 204);
});

test('a base imported from a rootfs tar runs boxes; progress comes as events', async () => {
  const tar = await tinyRootfsTar(await busyboxBinary(TEST_IMAGE), 'imported\n');
  const sse = new SseClient(`${t.url}/v1/events`, t.token);
  const res = await t.api('POST', '/v1/bases/tiny/import', undefined, {
    'content-type': 'application/octet-stream',
    'content-length': String(tar.length),
  });
  assert.equal(res.status, 400, 'no body is not an archive');
  await res.arrayBuffer();
  const base = await s.expect<Base>(
    await fetch(`${t.url}/v1/bases/tiny/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
      body: tar,
    }),
    201,
  );
  assert.equal(base.name, 'tiny');
  assert.ok(base.image_id);
  const done = await sse.waitFor(
    (e) =>
      e.event === 'base.import' &&
      (JSON.parse(e.data) as { data: { done: boolean; error?: string } }).data.done &&
      !(JSON.parse(e.data) as { data: { error?: string } }).data.error,
  );
  assert.equal((JSON.parse(done.data) as { data: { bytes: number } }).data.bytes, tar.length);
  await sse.waitFor(
    (e) => e.event === 'base.created' && (JSON.parse(e.data) as { data: { base: Base } }).data.base.name === 'tiny',
  );
  sse.close();
  const box = await s.create('tiny-box', { base: 'tiny' });
  assert.equal(box.status, 'running');
  assert.equal(await s.read('tiny-box', '/etc/marker'), 'imported\n');
  assert.equal(await s.read('tiny-box', '/etc/os-release'), null, 'nothing but the archive is in the root');
  await s.remove('tiny-box');
  await s.expect(await t.api('DELETE', '/v1/bases/tiny'), 204);
});

/** Whether the engine still has the image (by id), as `docker image ls -a` would show it. */
const engineHas = (id: string) =>
  docker
    .getImage(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );

test('deleting a base made from a box or a tar removes its image from the engine, once its boxes are gone', async () => {
  await s.create('source');
  const fromBox = await baseFromBox('leftover', 'source');
  await s.create('user', { base: 'leftover' });
  await s.remove('user');
  await s.remove('source');
  assert.ok(fromBox.image_id && (await engineHas(fromBox.image_id)));
  await s.expect(await t.api('DELETE', '/v1/bases/leftover'), 204);
  assert.equal(await engineHas(fromBox.image_id), false, 'no untagged image is left behind');

  const tar = await tinyRootfsTar(await busyboxBinary(TEST_IMAGE), 'gone\n');
  const imported = await s.expect<Base>(
    await fetch(`${t.url}/v1/bases/leftover-tar/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
      body: tar,
    }),
    201,
  );
  await s.create('tar-user', { base: 'leftover-tar' });
  await s.remove('tar-user');
  await s.expect(await t.api('DELETE', '/v1/bases/leftover-tar'), 204);
  assert.equal(await engineHas(imported.image_id!), false, 'no untagged image is left behind');
});

test('a base another base was made from (a box of it) is refused, naming it, until that one goes; then its image goes', async () => {
  await s.create('first-src');
  const first = await baseFromBox('first', 'first-src');
  await s.create('second-src', { base: 'first' });
  const second = await baseFromBox('second', 'second-src');
  await s.remove('second-src');
  await s.remove('first-src');
  assert.match(
    await detail(await t.api('DELETE', '/v1/bases/first'), 409),
    /base "first" is still used by base "second" \(made from a box of it\)/,
  );
  assert.ok(await engineHas(first.image_id!), 'nothing was deleted');
  await s.expect(await t.api('DELETE', '/v1/bases/second'), 204);
  await s.expect(await t.api('DELETE', '/v1/bases/first'), 204);
  assert.deepEqual([await engineHas(first.image_id!), await engineHas(second.image_id!)], [false, false]);
});

test('bad base requests: 400, 404, 409, and nothing made', async () => {
  const count = async () => ((await (await t.api('GET', '/v1/bases')).json()) as { items: Base[] }).items.length;
  const before = await count();
  await s.expect(await t.api('POST', '/v1/bases', { name: 'two', image: TEST_IMAGE, from_box: 'x' }), 400);
  await s.expect(await t.api('POST', '/v1/bases', { name: 'none' }), 400);
  await s.expect(await t.api('POST', '/v1/bases', { name: 'proj', image: TEST_IMAGE, project: 'bases' }), 400);
  await s.expect(await t.api('POST', '/v1/bases', { name: 'ghost', from_snapshot: 'snap_aaaaaaaaaaaaaaaaaaaa' }), 404);
  await s.expect(await t.api('POST', '/v1/bases', { name: 'ghost', from_box: 'nobody', project: 'bases' }), 404);
  await s.expect(await t.api('POST', '/v1/bases', { name: 'default', image: TEST_IMAGE }), 409);
  const garbage = await fetch(`${t.url}/v1/bases/junk/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body: Buffer.from('this is not a tar archive at all'),
  });
  assert.equal(garbage.status, 400, await garbage.text());
  assert.match(await detail(await t.api('DELETE', '/v1/bases/default'), 409), /cannot be deleted/);
  await s.expect(await t.api('DELETE', '/v1/bases/nothing-here'), 404);
  assert.equal(await count(), before);
});
