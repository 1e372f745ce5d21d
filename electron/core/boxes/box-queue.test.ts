import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { Program } from '../engine/memory/memory-process';
import {
  getBox,
  imageWithShell,
  problem,
  registerBase,
  startMemoryCore,
  untilStatus,
  type MemoryCore,
} from '../../../test-support/memory-core';

// The per-box queue: mutations of one box wait for each other, never longer
// than the bound (409), a request whose client went away never runs, and a
// delete does not wait behind a stuck stop. The box's main process holds its
// SIGTERM until the test lets it go, so a stop is stuck for exactly as long as
// the test wants: no timing in the assertions.

let t: MemoryCore;
const P = '/v1/projects/queue/boxes';
const QUEUE_WAIT_MS = 1000;
const held = new Map<string, () => void>();

/** A main process that, on SIGTERM, waits for `release(hostname)` and then exits 0. */
const heldShell: Program = async (ctx) => {
  await new Promise<void>((resolve) => ctx.trap('SIGTERM', () => held.set(ctx.hostname, resolve)));
  return 0;
};

function release(name: string): void {
  const go = held.get(name);
  assert.ok(go, `${name} got its SIGTERM`);
  go();
}

before(async () => {
  t = await startMemoryCore({ boxQueueWaitMs: QUEUE_WAIT_MS });
  imageWithShell(t.engine, 'test/held:1', heldShell);
  await registerBase(t, 'held', 'test/held:1');
});
after(() => t.close());

async function create(name: string): Promise<Box> {
  const res = await t.api('POST', P, { name, base: 'held' });
  assert.equal(res.status, 201, await res.clone().text());
  // Longer than any test: only the test (or a delete's kill) ends the stop.
  const put = await t.api('PUT', `${P}/${name}`, { termination_grace_period_seconds: 300 });
  return (await put.json()) as Box;
}

/** Sends a stop and waits until the box shows `stopping`; the stop's answer comes later. */
async function stopping(name: string): Promise<{ answer: Promise<Response> }> {
  const answer = t.api('POST', `${P}/${name}/stop`);
  await untilStatus(t, `${P}/${name}`, 'stopping');
  return { answer };
}

test('a request that would wait more than the bound behind a stuck stop answers 409, and delete still wins', async () => {
  const box = await create('patient');
  const { answer: stop } = await stopping('patient');
  const resume = await problem(await t.api('POST', `${P}/patient/resume`), 409, 'conflict');
  assert.match(resume.detail, /busy.*stopping.*did not finish within 1 s/);
  assert.match(resume.hint ?? '', /delete does not wait/);
  // Delete does not queue behind the stop: it kills the container, and the stop answers 409.
  const del = await t.api('DELETE', `${P}/patient`);
  assert.equal(del.status, 204, await del.text());
  const stopped = await problem(await stop, 409, 'conflict');
  assert.match(stopped.detail, /deleted while this request was in progress/);
  await problem(await t.api('GET', `${P}/patient`), 404, 'not_found');
  assert.deepEqual(await t.engine.listContainers({ 'boxdesk.id': box.id }), []);
});

test('a queued request whose client went away is dropped: it never runs; the one after it does', async () => {
  await create('fickle');
  const { answer: stop } = await stopping('fickle');
  // The server's side of the update, to know when it has seen the client go.
  const serverSide = new Promise<ServerResponse>((resolve) => {
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'PUT' || req.url !== `${P}/fickle`) return;
      t.core.app.server.off('request', onRequest);
      resolve(res);
    };
    t.core.app.server.on('request', onRequest);
  });
  const controller = new AbortController();
  const dropped = t.api('PUT', `${P}/fickle`, { environment: { APPLIED: 'yes' } }, {}, controller.signal);
  const res = await serverSide;
  // Its body read and the update queued behind the stop (a tiny body: well within this).
  await new Promise((r) => setTimeout(r, 100));
  const seenGone = new Promise((resolve) => res.once('close', resolve));
  controller.abort();
  await dropped.then(
    (r) => assert.fail(`the update answered ${r.status} while the stop was pending`),
    () => undefined,
  );
  await seenGone;
  const later = t.api('PUT', `${P}/fickle`, { tags: { after: 'yes' } });
  release('fickle');
  assert.equal((await stop).status, 200);
  assert.equal((await later).status, 200);
  const box = await getBox(t, `${P}/fickle`);
  assert.deepEqual([box.status, box.tags, box.environment], ['stopped', { after: 'yes' }, {}]);
});

test('a stop that finishes within the bound: the requests queued behind it run after it, in turn', async () => {
  await create('orderly');
  const { answer: stop } = await stopping('orderly');
  const update = t.api('PUT', `${P}/orderly`, { tags: { queued: 'yes' } });
  await new Promise((r) => setTimeout(r, 100));
  release('orderly');
  const [stopped, updated] = await Promise.all([stop, update]);
  assert.equal(((await stopped.json()) as Box).status, 'stopped');
  const after = (await updated.json()) as Box;
  assert.deepEqual([after.status, after.tags], ['stopped', { queued: 'yes' }], 'the update saw the stop done');
});
