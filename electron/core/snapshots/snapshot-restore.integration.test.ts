import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { containersOfBox, docker, waitFor } from '../../../test-support/docker';
import { snapshotApi, type SnapshotApi, withSnapshotCore } from '../../../test-support/snapshots';
import { SseClient } from '../../../test-support/sse';
import type { TestCore } from '../../../test-support/test-core';

let t: TestCore;
let s: SnapshotApi;
withSnapshotCore('snaps', (core, api) => ([t, s] = [core, api]));

test('a snapshot of a running box round-trips its files through restore; the box keeps its id, config, environment and tags', async () => {
  const sse = new SseClient(`${t.url}/v1/events`, t.token);
  const box = await s.create('round', { environment: { KEEP: 'me' }, tags: { team: 'x' }, config: { ram_mb: 256 } });
  await s.sh('round', 'mkdir -p /data && echo first > /data/file && echo gone-later > /data/other');
  const snap = await s.snapshot('round', 'one');
  assert.match(snap.id, /^snap_[a-z2-7]{20}$/);
  assert.equal(snap.name, 'one');
  assert.equal(snap.box, 'round');
  assert.equal(snap.project, 'snaps');
  assert.equal(snap.parent_id, 'default', 'a first snapshot descends from the base');
  assert.ok(snap.size_bytes > 0, 'the committed layer holds the written files');
  assert.match(snap.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal((await containersOfBox(box.id))[0]!.State, 'running', 'the box runs on after the snapshot');

  await s.sh('round', 'echo second > /data/file && rm /data/other && echo new > /data/new');
  const restored = await s.restore('round', snap.id);
  assert.equal(restored.id, box.id);
  assert.equal(restored.status, 'running');
  assert.deepEqual(restored.environment, { KEEP: 'me' });
  assert.deepEqual(restored.tags, { team: 'x' });
  assert.equal(restored.config.ram_mb, 256);
  assert.equal(await s.read('round', '/data/file'), 'first\n');
  assert.equal(await s.read('round', '/data/other'), 'gone-later\n');
  assert.equal(await s.read('round', '/data/new'), null, 'a file written after the snapshot is gone');
  const containers = await containersOfBox(box.id);
  assert.equal(containers.length, 1, 'exactly one container after the swap');
  assert.equal((await docker.getContainer(containers[0]!.Id).inspect()).HostConfig.Memory, 256 * 1024 * 1024);
  assert.equal(
    (
      await s.expect<{ stdout: string }>(
        await t.api('POST', `${s.boxes}/round/exec`, { command: ['sh', '-c', 'echo $KEEP'] }),
        200,
      )
    ).stdout,
    'me\n',
  );

  const second = await s.expect<Snapshot>(await t.api('POST', `${s.boxes}/round/snapshots`), 201);
  assert.match(second.name, /^snap-\d{8}-\d{6}-[a-z2-7]{4}$/, 'a generated name');
  assert.equal(second.parent_id, snap.id, 'a snapshot of a restored root descends from the snapshot');
  const list = await s.expect<{ items: Snapshot[] }>(await t.api('GET', `${s.boxes}/round/snapshots`), 200);
  assert.deepEqual(
    list.items.map((i) => i.id),
    [snap.id, second.id],
  );
  assert.deepEqual(await s.expect<Snapshot>(await t.api('GET', `/v1/projects/snaps/snapshots/${snap.id}`), 200), snap);

  await sse.waitFor(
    (e) =>
      e.event === 'snapshot.created' &&
      (JSON.parse(e.data) as { data: { snapshot: Snapshot } }).data.snapshot.id === second.id,
  );
  await s.expect(await t.api('DELETE', `/v1/projects/snaps/snapshots/${second.id}`), 204);
  await sse.waitFor(
    (e) =>
      e.event === 'snapshot.deleted' &&
      (JSON.parse(e.data) as { data: { snapshot: Snapshot } }).data.snapshot.id === second.id,
  );
  sse.close();
  await s.expect(await t.api('GET', `/v1/projects/snaps/snapshots/${second.id}`), 404);
});

test("restoring a stopped box leaves it stopped, with the snapshot's files", async () => {
  await s.create('sleeper');
  await s.sh('sleeper', 'echo kept > /root/state');
  const snap = await s.snapshot('sleeper');
  await s.sh('sleeper', 'echo changed > /root/state');
  await s.expect(await t.api('POST', `${s.boxes}/sleeper/stop`), 200);
  const restored = await s.restore('sleeper', snap.id);
  assert.equal(restored.status, 'stopped');
  const [c] = await containersOfBox(restored.id);
  assert.equal(c!.State, 'created', 'the new container is not started');
  await s.expect(await t.api('POST', `${s.boxes}/sleeper/resume`), 200);
  assert.equal(await s.read('sleeper', '/root/state'), 'kept\n');
});

test('a stopped box can be snapshotted', async () => {
  await s.create('still');
  await s.sh('still', 'echo cold > /root/f');
  await s.expect(await t.api('POST', `${s.boxes}/still/stop`), 200);
  const snap = await s.snapshot('still');
  await s.expect(await t.api('POST', `${s.boxes}/still/resume`), 200);
  await s.sh('still', 'rm /root/f');
  await s.restore('still', snap.id);
  assert.equal(await s.read('still', '/root/f'), 'cold\n');
});

test('bad input: 400 or 404 and nothing made', async () => {
  await s.create('plain');
  await s.expect(await t.api('POST', `${s.boxes}/plain/snapshots`, { name: 'Bad_Name' }), 400);
  await s.expect(await t.api('POST', `${s.boxes}/plain/snapshots`, { name: 'ok', extra: 1 }), 400);
  await s.expect(await t.api('POST', `${s.boxes}/nobody/snapshots`, {}), 404);
  await s.expect(await t.api('POST', `${s.boxes}/plain/restore`, { snapshot_id: 'snap_aaaaaaaaaaaaaaaaaaaa' }), 404);
  await s.expect(await t.api('POST', `${s.boxes}/plain/restore`, { snapshot_id: 'nope' }), 400);
  await s.expect(await t.api('POST', `${s.boxes}/plain/restore`, {}), 400);
  await s.expect(await t.api('GET', '/v1/projects/snaps/snapshots/snap_aaaaaaaaaaaaaaaaaaaa'), 404);
  await s.snapshot('plain', 'taken');
  const dup = await s.expect<{ code: string }>(
    await t.api('POST', `${s.boxes}/plain/snapshots`, { name: 'taken' }),
    409,
  );
  assert.equal(dup.code, 'already_exists');
  assert.equal(
    (await s.expect<{ items: Snapshot[] }>(await t.api('GET', `${s.boxes}/plain/snapshots`), 200)).items.length,
    1,
  );
  // A snapshot of another project is not found from this one.
  const other = snapshotApi(t.api, 'snaps-other');
  await other.create('elsewhere');
  const foreign = await other.snapshot('elsewhere');
  await s.expect(await t.api('POST', `${s.boxes}/plain/restore`, { snapshot_id: foreign.id }), 404);
  await other.remove('elsewhere');
  await s.expect(await t.api('DELETE', `/v1/projects/snaps-other/snapshots/${foreign.id}`), 204);
});

test('a snapshot the engine cannot make is an error, never a 201, and leaves nothing listed', async () => {
  const box = await s.create('doomed');
  // The container goes behind the core's back: the commit has nothing to commit.
  for (const c of await containersOfBox(box.id)) await docker.getContainer(c.Id).remove({ force: true });
  const res = await t.api('POST', `${s.boxes}/doomed/snapshots`, { name: 'never' });
  assert.ok(
    res.status >= 400 && res.status < 600 && res.status !== 500,
    `expected a problem other than 500, got ${res.status}`,
  );
  const problem = (await res.json()) as { code: string; detail: string };
  assert.ok(problem.detail.length > 0);
  assert.equal(
    (await s.expect<{ items: Snapshot[] }>(await t.api('GET', `${s.boxes}/doomed/snapshots`), 200)).items.length,
    0,
  );
  const all = await s.expect<{ items: Snapshot[] }>(await t.api('GET', '/v1/projects/snaps/snapshots'), 200);
  assert.equal(all.items.filter((x) => x.name === 'never').length, 0);
});

test("/workspace is in every snapshot on the suite's store: a restore brings it back (written or empty), a fork starts from it", async () => {
  await s.create('ws');
  const pwd = await s.sh('ws', 'pwd');
  assert.equal(pwd.stdout, '/workspace\n', 'exec starts in /workspace');
  const empty = await s.snapshot('ws', 'empty');
  await s.sh('ws', 'echo kept > note');
  const written = await s.snapshot('ws', 'written');
  await s.sh('ws', 'echo later > note && echo x > extra');
  await s.restore('ws', written.id);
  assert.equal((await s.sh('ws', 'cat note; ls')).stdout, 'kept\nnote\n');
  const fork = await s.create('ws-fork', { fork: empty.id });
  assert.equal(fork.status, 'running');
  assert.equal((await s.sh('ws-fork', 'ls -A; echo own > mine && cat mine')).stdout, 'own\n');
  await s.restore('ws', empty.id);
  assert.equal((await s.sh('ws', 'ls -A')).stdout, '', 'the workspace is as empty as when the snapshot was taken');
  assert.equal(await s.read('ws', '/workspace/mine'), null, "the fork's writes stay in the fork");
});

test('a snapshot taken while a process writes holds the workspace and the root of one instant', async () => {
  await s.create('busy');
  // Each round writes the counter to /workspace, then to the root, each file swapped in whole:
  // frozen at any instant, the workspace holds the root's value or the next one.
  const writer =
    'i=0; while :; do i=$((i+1)); echo $i > /workspace/c.t && mv /workspace/c.t /workspace/c; echo $i > /root/c.t && mv /root/c.t /root/c; done';
  const job = await s.expect<{ id: string }>(
    await t.api('POST', `${s.boxes}/busy/exec`, { command: ['sh', '-c', writer], background: true }),
    202,
  );
  const counters = async (box: string) => {
    const out = (await s.sh(box, 'cat /workspace/c /root/c')).stdout.trim().split('\n').map(Number);
    return { workspace: out[0]!, root: out[1]! };
  };
  try {
    // The job is accepted before its first round is written: wait for the root's counter.
    await waitFor(async () => (await counters('busy')).root > 0, 15_000, 'the writer to write its first round');
    for (let round = 0; round < 3; round++) {
      const running = await counters('busy');
      assert.ok(running.root > 0, 'the writer runs');
      const snap = await s.snapshot('busy', `busy-${round}`);
      await s.create(`busy-fork-${round}`, { fork: snap.id });
      const at = await counters(`busy-fork-${round}`);
      assert.ok(
        at.workspace === at.root || at.workspace === at.root + 1,
        `round ${round}: the workspace says ${at.workspace}, the root ${at.root}: one instant`,
      );
    }
  } finally {
    await t.api('POST', `${s.boxes}/busy/jobs/${job.id}/kill`).then((r) => r.arrayBuffer());
  }
});
