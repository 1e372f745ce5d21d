import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { containersOfBox, docker } from '../../../test-support/docker';
import { type SnapshotApi, withSnapshotCore } from '../../../test-support/snapshots';
import type { TestCore } from '../../../test-support/test-core';

let t: TestCore;
let s: SnapshotApi;
withSnapshotCore('forks', (core, api) => ([t, s] = [core, api]));

test('a fork of a box and its source diverge both ways; the source keeps running', async () => {
  const source = await s.create('trunk');
  await s.sh('trunk', 'echo shared > /root/common');
  const fork = await s.create('branch', { fork: 'trunk' });
  assert.equal(fork.status, 'running');
  assert.equal((await containersOfBox(source.id))[0]!.State, 'running');
  await s.sh('trunk', 'echo from-trunk > /root/common && echo t > /root/only-trunk');
  await s.sh('branch', 'echo from-branch > /root/common && echo b > /root/only-branch');
  assert.equal(await s.read('trunk', '/root/common'), 'from-trunk\n');
  assert.equal(await s.read('branch', '/root/common'), 'from-branch\n');
  assert.equal(await s.read('trunk', '/root/only-branch'), null);
  assert.equal(await s.read('branch', '/root/only-trunk'), null);
});

test('a fork from a snapshot id starts from the snapshot, inherits its config and environment, and diverges from the source', async () => {
  await s.create('seed', { environment: { FROM: 'seed' }, config: { ram_mb: 320 } });
  await s.sh('seed', 'echo at-snapshot > /root/v');
  const snap = await s.snapshot('seed', 'v1');
  await s.sh('seed', 'echo after-snapshot > /root/v');
  const fork = await s.create('sprout', { fork: snap.id });
  assert.equal(fork.status, 'running');
  assert.deepEqual(fork.environment, { FROM: 'seed' });
  assert.equal(fork.config.ram_mb, 320);
  assert.equal(fork.base, 'default');
  assert.equal(await s.read('sprout', '/root/v'), 'at-snapshot\n');
  await s.sh('sprout', 'echo in-sprout > /root/v');
  assert.equal(await s.read('seed', '/root/v'), 'after-snapshot\n');
  // A second fork of the same snapshot is independent of the first.
  await s.create('sprout2', { fork: snap.id });
  assert.equal(await s.read('sprout2', '/root/v'), 'at-snapshot\n');
  // The fork's snapshots descend from the snapshot it was forked from.
  const child = await s.snapshot('sprout');
  assert.equal(child.parent_id, snap.id);
  const [c] = await containersOfBox(fork.id);
  assert.equal((await docker.getContainer(c!.Id).inspect()).HostConfig.Memory, 320 * 1024 * 1024);
});

test('fork from an unknown snapshot or box: 404; fork with base: 400; nothing made', async () => {
  const before = ((await (await t.api('GET', s.boxes)).json()) as { items: Box[] }).items.length;
  await s.expect(await t.api('POST', s.boxes, { name: 'ghost', fork: 'snap_aaaaaaaaaaaaaaaaaaaa' }), 404);
  await s.expect(await t.api('POST', s.boxes, { name: 'ghost', fork: 'nobody' }), 404);
  await s.expect(await t.api('POST', s.boxes, { name: 'ghost', fork: 'trunk', base: 'default' }), 400);
  await s.expect(await t.api('POST', s.boxes, { name: 'ghost', fork: 'snap_NOT_AN_ID' }), 400);
  assert.equal(((await (await t.api('GET', s.boxes)).json()) as { items: Box[] }).items.length, before);
});
