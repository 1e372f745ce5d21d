import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { cgroupLimits, containersOfBox, docker, waitFor } from '../../../test-support/docker';
import { createBox, followLogsUntil, withBoxesCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
const P = '/v1/projects/lifecycle/boxes';

withBoxesCore(P, (core) => (t = core));

const create = (body: Record<string, unknown>): Promise<Box> => createBox(t, P, body);

async function problem(
  res: Response,
  status: number,
  code: string,
): Promise<{ detail: string; errors?: { path: string }[] }> {
  const body = (await res.json()) as { code: string; detail: string; errors?: { path: string }[] };
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.code, code);
  return body;
}

describe('create', () => {
  test('answers 201 with a running box backed by a labelled container with an init and engine limits', async () => {
    const box = await create({
      name: 'alpha',
      config: { cpus: 1, ram_mb: 256 },
      environment: { GREETING: 'hi' },
      tags: { team: 'core' },
    });
    assert.equal(box.status, 'running');
    assert.match(box.id, /^box_[a-z2-7]{20}$/);
    assert.match(box.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(box.config, { cpus: 1, ram_mb: 256, region: 'local', storage_gb: 10, pids_limit: 1024 });
    assert.equal(box.base, 'default');
    const [c] = await containersOfBox(box.id);
    assert.ok(c, 'container exists');
    assert.equal(c.Labels['boxdesk.project'], 'lifecycle');
    assert.equal(c.Labels['boxdesk.box'], 'alpha');
    const info = await docker.getContainer(c.Id).inspect();
    assert.equal(info.State.Running, true);
    // An init as PID 1: Boxdesk's agent (which reaps and runs the main process) where it is built, else the engine's.
    if (info.Path === '/.boxdesk/agent')
      // Podman leaves Init out when it is false.
      assert.deepEqual([info.HostConfig.Init ?? false, info.Args.slice(0, 2)], [false, ['box', '--']]);
    else assert.equal(info.HostConfig.Init, true);
    assert.equal(info.HostConfig.NanoCpus, 1e9);
    assert.equal(info.HostConfig.Memory, 256 * 1024 * 1024);
    const env = (await (
      await t.api('POST', `${P}/alpha/exec`, { command: ['sh', '-c', 'echo $GREETING'] })
    ).json()) as { stdout: string };
    assert.equal(env.stdout, 'hi\n', 'the box environment reaches execs');
  });

  test('storage_gb is reported as not enforced on an engine that cannot limit it', async () => {
    const box = (await (await t.api('GET', `${P}/alpha`)).json()) as Box;
    const info = await docker.info();
    const enforceable = info.Driver === 'overlay2' && JSON.stringify(info.DriverStatus).includes('xfs');
    assert.equal(box.storage_enforced, enforceable);
  });

  test('N simultaneous creates of one name: one 201, N-1 409, one container', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => t.api('POST', P, { name: 'racer' })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    const box = (await (await t.api('GET', `${P}/racer`)).json()) as Box;
    const containers = await docker.listContainers({
      all: true,
      filters: { label: ['boxdesk.project=lifecycle', 'boxdesk.box=racer'] },
    });
    assert.equal(containers.length, 1);
    assert.equal(containers[0]!.Labels['boxdesk.id'], box.id);
  });
});

// Bad bodies (update's included), unknown references, taken names, list filters and paging, and a
// 404 for an unknown box are box-lifecycle.test.ts's, on the in-memory engine: they are the same on every engine.

describe('update', () => {
  test('ram changes live: the running container gets the new memory limit', async () => {
    const res = await t.api('PUT', `${P}/alpha`, { config: { ram_mb: 512 } });
    assert.equal(res.status, 200);
    const box = (await res.json()) as Box;
    assert.deepEqual([box.config.ram_mb, box.status], [512, 'running']);
    const [c] = await containersOfBox(box.id);
    assert.equal((await cgroupLimits(c!.Id)).memoryBytes, 512 * 1024 * 1024);
    const stats = (await (await t.api('GET', `${P}/alpha/stats`)).json()) as { memory_limit_bytes: number };
    assert.equal(stats.memory_limit_bytes, 512 * 1024 * 1024);
  });
});

describe('status machine', () => {
  test('stop and resume are idempotent; stop sends SIGTERM (clean exit)', async () => {
    await create({ name: 'cycle' });
    const stopped = (await (await t.api('POST', `${P}/cycle/stop`)).json()) as Box;
    assert.equal(stopped.status, 'stopped');
    const [c] = await containersOfBox(stopped.id);
    const info = await docker.getContainer(c!.Id).inspect();
    assert.equal(info.State.Running, false);
    assert.equal(info.State.ExitCode, 0, 'the main process exited on SIGTERM');
    const again = await t.api('POST', `${P}/cycle/stop`);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as Box).updated_at, stopped.updated_at, 'unchanged');
    const resumed = (await (await t.api('POST', `${P}/cycle/resume`)).json()) as Box;
    assert.equal(resumed.status, 'running');
    assert.equal((await docker.getContainer(c!.Id).inspect()).State.Running, true);
    const twice = await t.api('POST', `${P}/cycle/resume`);
    assert.equal(twice.status, 200);
    assert.equal(((await twice.json()) as Box).updated_at, resumed.updated_at);
  });

  test('a main process that ignores SIGTERM is killed after the grace period', async () => {
    const box = await create({ name: 'stubborn' });
    await t.api('PUT', `${P}/stubborn`, { termination_grace_period_seconds: 1 });
    // Freeze the main process: a stopped process does not act on SIGTERM, so only SIGKILL ends it.
    const exec = await t.api('POST', `${P}/stubborn/exec`, {
      command: [
        'sh',
        '-c',
        'for p in /proc/[0-9]*; do [ "${p#/proc/}" != $$ ] && [ "$(cat $p/stat | cut -d" " -f4)" = 1 ] && grep -q "^sh" $p/comm && kill -STOP ${p#/proc/}; done; true',
      ],
    });
    assert.equal(exec.status, 200);
    const stopped = (await (await t.api('POST', `${P}/stubborn/stop`)).json()) as Box;
    assert.equal(stopped.status, 'stopped');
    const [c] = await containersOfBox(box.id);
    assert.equal((await docker.getContainer(c!.Id).inspect()).State.ExitCode, 137, 'SIGKILL after the grace period');
  });

  test('invalid transitions: 409; exec on a stopped box: 409; delete from stopped works', async () => {
    await t.api('POST', `${P}/cycle/stop`);
    await problem(await t.api('POST', `${P}/cycle/exec`, { command: ['true'] }), 409, 'conflict');
    const del = await t.api('DELETE', `${P}/cycle`);
    assert.equal(del.status, 204);
    await problem(await t.api('GET', `${P}/cycle`), 404, 'not_found');
    await problem(await t.api('POST', `${P}/cycle/stop`), 404, 'not_found');
  });

  test('delete removes the container', async () => {
    const box = await create({ name: 'doomed' });
    assert.equal((await t.api('DELETE', `${P}/doomed`)).status, 204);
    assert.equal((await containersOfBox(box.id)).length, 0);
  });

  test('a container removed behind our back turns the box to error with a reason; delete still works', async () => {
    const box = await create({ name: 'victim' });
    const [c] = await containersOfBox(box.id);
    await docker.getContainer(c!.Id).remove({ force: true });
    const errored = await waitFor(
      async () => {
        const b = (await (await t.api('GET', `${P}/victim`)).json()) as Box;
        return b.status === 'error' ? b : null;
      },
      10_000,
      'box to turn error',
    );
    assert.match(errored.status_reason ?? '', /removed outside Boxdesk/);
    await problem(await t.api('POST', `${P}/victim/resume`), 409, 'conflict');
    assert.equal((await t.api('DELETE', `${P}/victim`)).status, 204);
  });
});

// A fork on the real engine: snapshots/fork.integration; its logic: box-lifecycle.test (in memory).
describe('logs', () => {
  test('logs returns the main process output, with tail and follow', async () => {
    await t.api('POST', `${P}/alpha/exec`, {
      command: ['sh', '-c', 'echo first-line > /proc/1/fd/1; echo second-line > /proc/1/fd/1'],
    });
    const all = await (await t.api('GET', `${P}/alpha/logs`)).text();
    assert.match(all, /first-line\nsecond-line/);
    const tail = await (await t.api('GET', `${P}/alpha/logs?tail=1`)).text();
    assert.equal(tail, 'second-line\n');
    const text = await followLogsUntil(t, `${P}/alpha`, 'followed-line', () =>
      t.api('POST', `${P}/alpha/exec`, { command: ['sh', '-c', 'echo followed-line > /proc/1/fd/1'] }),
    );
    assert.match(text, /followed-line/);
  });
});
