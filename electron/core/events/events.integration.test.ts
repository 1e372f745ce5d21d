import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SseClient, boxOf } from '../../../test-support/sse';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(async () => {
  for (const [p, n] of [
    ['ev', 'e1'],
    ['ev', 'e2'],
    ['other', 'o1'],
  ])
    await t.api('DELETE', `/v1/projects/${p}/boxes/${n}`);
  await t.close();
});

test('box.created, box.status, box.updated and box.deleted carry the box', async () => {
  const sse = new SseClient(`${t.url}/v1/events`, t.token);
  try {
    assert.equal((await t.api('POST', '/v1/projects/ev/boxes', { name: 'e1' })).status, 201);
    const created = await sse.waitFor((e) => e.event === 'box.created');
    assert.equal(boxOf(created).name, 'e1');
    assert.equal(boxOf(created).status, 'creating');
    await sse.waitFor((e) => e.event === 'box.status' && boxOf(e).status === 'running');
    await t.api('PUT', '/v1/projects/ev/boxes/e1', { tags: { a: 'b' } });
    await sse.waitFor((e) => e.event === 'box.updated' && boxOf(e).name === 'e1');
    await t.api('POST', '/v1/projects/ev/boxes/e1/stop');
    await sse.waitFor((e) => e.event === 'box.status' && boxOf(e).status === 'stopping');
    await sse.waitFor((e) => e.event === 'box.status' && boxOf(e).status === 'stopped');
    assert.equal((await t.api('DELETE', '/v1/projects/ev/boxes/e1')).status, 204);
    await sse.waitFor((e) => e.event === 'box.deleted' && boxOf(e).name === 'e1');
    const ids = sse.events.map((e) => Number(e.id!.split('-')[1]));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'ids increase',
    );
  } finally {
    sse.close();
  }
});

test('a client that reconnects with Last-Event-ID misses nothing; an unknown id gets a reset', async () => {
  const first = new SseClient(`${t.url}/v1/events`, t.token);
  await t.api('POST', '/v1/projects/ev/boxes', { name: 'e2' });
  const seen = await first.waitFor(
    (e) => e.event === 'box.status' && boxOf(e).name === 'e2' && boxOf(e).status === 'running',
  );
  first.close();
  // While disconnected:
  await t.api('PUT', '/v1/projects/ev/boxes/e2', { tags: { missed: 'yes' } });
  await t.api('POST', '/v1/projects/ev/boxes/e2/stop');
  const again = new SseClient(`${t.url}/v1/events`, t.token, seen.id);
  try {
    await again.waitFor((e) => e.event === 'box.status' && boxOf(e).status === 'stopped');
    const replayed = again.events.map((e) => `${e.event}:${boxOf(e).status}`);
    assert.deepEqual(replayed.slice(0, 3), ['box.updated:running', 'box.status:stopping', 'box.status:stopped']);
  } finally {
    again.close();
  }
  const stale = new SseClient(`${t.url}/v1/events`, t.token, 'someotherepoch-5');
  try {
    await stale.waitFor((e) => e.event === 'reset');
  } finally {
    stale.close();
  }
});

test('a project-restricted token sees only its project', async () => {
  const res = await t.api('POST', '/v1/tokens', { name: 'ev-only', scopes: ['read'], project: 'ev' });
  const { token } = (await res.json()) as { token: string };
  const sse = new SseClient(`${t.url}/v1/events`, token);
  try {
    await t.api('POST', '/v1/projects/other/boxes', { name: 'o1' });
    await t.api('PUT', '/v1/projects/ev/boxes/e2', { tags: { after: 'restricted' } });
    await sse.waitFor((e) => e.event === 'box.updated');
    assert.ok(
      sse.events.every(
        (e) => !e.event.startsWith('box.') || (JSON.parse(e.data) as { project: string }).project === 'ev',
      ),
    );
  } finally {
    sse.close();
  }
});
