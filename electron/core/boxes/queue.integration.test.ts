import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { containersOfBox, docker, waitFor } from '../../../test-support/docker';
import { createBox, withBoxesCore, type TestCore } from '../../../test-support/test-core';

// Mutations of one box wait for each other, but never forever: a stop stuck
// on frozen processes does not hold the box hostage. The queue bound is 60 s
// in the product; this core uses 5 s so the test is quick.

let t: TestCore;
const P = '/v1/projects/queue/boxes';
const QUEUE_WAIT_MS = 5000;

withBoxesCore(P, (core) => (t = core), { boxQueueWaitMs: QUEUE_WAIT_MS });

const create = (name: string): Promise<Box> => createBox(t, P, { name });

async function get(name: string): Promise<Box> {
  return (await (await t.api('GET', `${P}/${name}`)).json()) as Box;
}

/** Freezes every process of the box but its init: SIGTERM then waits, pending, until SIGCONT or SIGKILL. */
async function freeze(name: string): Promise<void> {
  const res = await t.api('POST', `${P}/${name}/exec`, { command: ['sh', '-c', 'kill -STOP -1'] });
  assert.equal(res.status, 200, await res.text());
}

/** Thaws the box's processes through the engine directly (the box is `stopping`: the API refuses exec). */
async function thaw(containerId: string): Promise<void> {
  const exec = await docker
    .getContainer(containerId)
    .exec({ Cmd: ['sh', '-c', 'kill -CONT -1'], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  await new Promise((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.resume();
  });
}

/** Sends a stop and waits until the box shows `stopping`; the stop's answer comes later. */
async function stopping(name: string): Promise<{ answer: Promise<Response> }> {
  const answer = t.api('POST', `${P}/${name}/stop`);
  await waitFor(async () => (await get(name)).status === 'stopping', 10_000, `${name} to be stopping`);
  return { answer };
}

test('a huge grace period is accepted and kept as given (it acts as at most 300 s)', async () => {
  await create('patient');
  const res = await t.api('PUT', `${P}/patient`, { termination_grace_period_seconds: 2147483647 });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as Box).termination_grace_period_seconds, 2147483647);
  const bad = await t.api('PUT', `${P}/patient`, { termination_grace_period_seconds: 2147483648 });
  assert.equal(bad.status, 400);
});

test(
  'a request that would wait more than the bound behind a stuck stop answers 409, and delete still wins',
  { timeout: 120_000 },
  async () => {
    const box = await get('patient');
    const [c] = await containersOfBox(box.id);
    await freeze('patient');
    const stop = await stopping('patient');
    const resume = await t.api('POST', `${P}/patient/resume`);
    const body = (await resume.json()) as { code: string; detail: string; hint?: string };
    assert.equal(resume.status, 409, JSON.stringify(body));
    assert.match(body.detail, /busy/);
    // Delete does not queue behind the stop: it kills the container, and the stop answers 409.
    const del = await t.api('DELETE', `${P}/patient`);
    assert.equal(del.status, 204, await del.text());
    const stopped = await stop.answer;
    assert.equal(stopped.status, 409, await stopped.clone().text());
    assert.equal((await t.api('GET', `${P}/patient`)).status, 404);
    assert.equal((await containersOfBox(box.id)).length, 0);
    await docker
      .getContainer(c!.Id)
      .inspect()
      .then(
        () => assert.fail('the container is still there'),
        () => undefined,
      );
  },
);

test('a queued request whose client went away is dropped: it never runs', { timeout: 60_000 }, async () => {
  const box = await create('fickle');
  assert.equal((await t.api('PUT', `${P}/fickle`, { termination_grace_period_seconds: 120 })).status, 200);
  const [c] = await containersOfBox(box.id);
  await freeze('fickle');
  const stop = await stopping('fickle');
  const controller = new AbortController();
  const update = t.api('PUT', `${P}/fickle`, { tags: { applied: 'yes' } }, {}, controller.signal);
  await new Promise((r) => setTimeout(r, 300));
  controller.abort();
  await update.then(
    (res) => assert.fail(`the update answered ${res.status} while the stop was pending`),
    () => undefined,
  );
  // The stop finishes well within the queue bound: a queued update that was not dropped would run now.
  await thaw(c!.Id);
  const stopped = await stop.answer;
  assert.equal(stopped.status, 200, await stopped.clone().text());
  await new Promise((r) => setTimeout(r, 500));
  const after = await get('fickle');
  assert.equal(after.status, 'stopped');
  assert.deepEqual(after.tags, {}, 'the abandoned update was not applied');
});
