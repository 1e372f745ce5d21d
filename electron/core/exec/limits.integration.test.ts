import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { ExecResult } from '../../../shared/schemas/exec';
import { containersOfBox, docker } from '../../../test-support/docker';
import { SseClient } from '../../../test-support/sse';
import { createBox, withBoxesCore, type TestCore } from '../../../test-support/test-core';

// One box cannot take the machine down: a pids limit caps a fork bomb, the
// exec's timeout bounds its answer, delete removes the box; an exec killed for
// memory says so.

let t: TestCore;
const P = '/v1/projects/limits/boxes';

withBoxesCore(P, (core) => (t = core));

const create = (name: string, config: Record<string, unknown>): Promise<Box> => createBox(t, P, { name, config });

async function exec(name: string, body: Record<string, unknown>): Promise<ExecResult> {
  const res = await t.api('POST', `${P}/${name}/exec`, body);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as ExecResult;
}

test('every box has a pids limit: 1024 by default, set at create, changed live', async () => {
  const plain = await create('plain', {});
  assert.equal(plain.config.pids_limit, 1024);
  const [c] = await containersOfBox(plain.id);
  assert.equal((await docker.getContainer(c!.Id).inspect()).HostConfig.PidsLimit, 1024);
  const res = await t.api('PUT', `${P}/plain`, { config: { pids_limit: 200 } });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as Box).config.pids_limit, 200);
  assert.equal((await docker.getContainer(c!.Id).inspect()).HostConfig.PidsLimit, 200);
  const bad = await t.api('PUT', `${P}/plain`, { config: { pids_limit: 1 } });
  assert.equal(bad.status, 400);
});

test(
  'a fork bomb stays under the pids limit, its exec answers at its timeout, and the box can be deleted',
  { timeout: 120_000 },
  async () => {
    const box = await create('bomb', { pids_limit: 64 });
    const [c] = await containersOfBox(box.id);
    const container = docker.getContainer(c!.Id);
    // Refuse to light it where nothing would contain it.
    assert.equal((await container.inspect()).HostConfig.PidsLimit, 64);
    // The bomb runs in a subshell (busybox sh may exit when a fork fails); the outer shell then turns
    // into a sleep (exec needs no fork), so the command always outlives its timeout.
    const result = await exec('bomb', { command: ['sh', '-c', 'f(){ f|f & }; (f); exec sleep 60'], timeout_s: 5 });
    assert.equal(result.timed_out, true);
    assert.notEqual(result.exit_code, 0);
    const sample = (await container.stats({ stream: false })) as unknown as { pids_stats?: { current?: number } };
    assert.ok((sample.pids_stats?.current ?? 0) <= 64, `pids ${sample.pids_stats?.current} within the limit`);
    const del = await t.api('DELETE', `${P}/bomb`);
    assert.equal(del.status, 204, await del.text());
    assert.equal((await containersOfBox(box.id)).length, 0);
  },
);

test('an exec killed for memory answers 137 with oom_killed, the box keeps running, and box.oom says exec', async () => {
  await create('small', { ram_mb: 64 });
  const sse = new SseClient(`${t.url}/v1/events`, t.token);
  try {
    const hog = await exec('small', {
      command: ['sh', '-c', 'x=$(head -c 300000000 /dev/zero | tr "\\0" a); echo ${#x}'],
    });
    assert.equal(hog.exit_code, 137);
    assert.equal(hog.oom_killed, true);
    const event = await sse.waitFor((e) => e.event === 'box.oom');
    const data = (JSON.parse(event.data) as { data: { box: string; process: string } }).data;
    assert.deepEqual([data.box, data.process], ['small', 'exec']);
    const box = (await (await t.api('GET', `${P}/small`)).json()) as Box;
    assert.equal(box.status, 'running');
  } finally {
    sse.close();
  }
  // A kill that is not the kernel's for memory is not reported as one.
  const killed = await exec('small', { command: ['sh', '-c', 'kill -9 $$'] });
  assert.equal(killed.exit_code, 137);
  assert.equal(killed.oom_killed, false);
});
