import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import { containersOfBox, docker, waitFor } from '../../../../test-support/docker';
import { previewRequest, startBoxServers } from '../../../../test-support/preview-http';
import { SseClient } from '../../../../test-support/sse';
import { createBox, withBoxesCore, type TestCore } from '../../../../test-support/test-core';

// Pause and wake on a real engine: a paused box's container is frozen, and exec, files and a
// request through the proxy wake it without the client noticing; stats does not. Then the
// clocks, with second-scale values: idle pause, idle stop, auto_delete and expiry, each an event.

let t: TestCore;
const project = 'sleepy';
const P = `/v1/projects/${project}/boxes`;

withBoxesCore(P, (core) => (t = core));

async function ok<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return (text ? JSON.parse(text) : null) as T;
}
const get = (name: string) => t.api('GET', `${P}/${name}`).then((r) => ok<Box>(r));
const pause = (name: string) => t.api('POST', `${P}/${name}/pause`).then((r) => ok<Box>(r));
const frozen = async (box: Box) =>
  (await docker.getContainer((await containersOfBox(box.id))[0]!.Id).inspect()).State.Paused;

function until(name: string, match: (box: Box | null) => boolean, what: string): Promise<Box | null> {
  return waitFor(
    async () => {
      const res = await t.api('GET', `${P}/${name}`);
      const box = res.status === 404 ? null : ((await res.json()) as Box);
      return match(box) ? { box } : null;
    },
    15_000,
    what,
  ).then((r) => r.box);
}

test('pause freezes the box (idempotent); stats do not wake it; exec, files and a proxied request wake it', async () => {
  const box = await createBox(t, P, { name: 'nap' });
  await startBoxServers(t.api, `${P}/nap`, { port: 8080, text: 'awake' });
  await ok(await t.api('POST', `${P}/nap/publish`, { port: 8080, auth: 'public' }));
  const paused = await pause('nap');
  assert.equal(paused.status, 'paused');
  assert.equal(await frozen(box), true);
  assert.equal((await pause('nap')).status, 'paused', 'pause again: 200, unchanged');
  await ok(await t.api('GET', `${P}/nap/stats`));
  assert.equal((await get('nap')).status, 'paused', 'stats leave it paused');

  const ran = await ok<{ stdout: string }>(await t.api('POST', `${P}/nap/exec`, { command: ['echo', 'hi'] }));
  assert.equal(ran.stdout, 'hi\n');
  assert.equal((await get('nap')).status, 'running');
  assert.equal(await frozen(box), false);

  await pause('nap');
  const file = await t.api('GET', `${P}/nap/files?path=/www8080/index.html`);
  assert.equal(await file.text(), 'awake');
  assert.equal((await get('nap')).status, 'running');

  await pause('nap');
  const host = `nap--${project}.localhost:${t.core.proxyPort}`;
  const answers = await Promise.all([1, 2, 3].map(() => previewRequest(t.core.proxyPort, host, '/')));
  assert.deepEqual(
    answers.map((a) => [a.status, a.body]),
    [1, 2, 3].map(() => [200, 'awake']),
  );
  assert.equal((await get('nap')).status, 'running');
});

test('a paused box stops, resumes and deletes; exec on a stopped one is still a 409', async () => {
  await pause('nap');
  assert.equal((await ok<Box>(await t.api('POST', `${P}/nap/stop`))).status, 'stopped');
  const res = await t.api('POST', `${P}/nap/exec`, { command: ['true'] });
  assert.equal(res.status, 409);
  assert.equal((await t.api('POST', `${P}/nap/pause`)).status, 409, 'a stopped box cannot be paused');
  assert.equal((await ok<Box>(await t.api('POST', `${P}/nap/resume`))).status, 'running');
  await pause('nap');
  assert.equal((await ok<Box>(await t.api('POST', `${P}/nap/resume`))).status, 'running', 'resume wakes it');
  await pause('nap');
  await ok(await t.api('DELETE', `${P}/nap`), 204);
});

test('lifecycle: bad values are 400s that change nothing', async () => {
  for (const lifecycle of [{ auto_pause_s: 0 }, { expires_at: '2001-01-01T00:00:00.000Z' }, { idle: 3 }]) {
    const res = await t.api('POST', P, { name: 'never', lifecycle });
    assert.equal(res.status, 400, JSON.stringify(lifecycle));
  }
  assert.equal((await t.api('GET', `${P}/never`)).status, 404);
});

test('lifecycle clocks: idle pause, then idle stop, then auto_delete; expiry deletes a running box; each an event', async () => {
  const events = new SseClient(`${t.url}/v1/events`, t.token);
  try {
    const expiresAt = new Date(Date.now() + 4000).toISOString();
    const [idle, doomed] = await Promise.all([
      createBox(t, P, { name: 'idle', lifecycle: { auto_pause_s: 1, auto_stop_s: 3 } }),
      createBox(t, P, { name: 'doomed', lifecycle: { expires_at: expiresAt } }),
    ]);
    assert.deepEqual(idle.lifecycle, { auto_pause_s: 1, auto_stop_s: 3, auto_delete_s: null, expires_at: null });
    assert.equal(idle.next_change?.action, 'pause');
    assert.deepEqual(doomed.next_change, { action: 'delete', reason: 'expired', at: expiresAt });

    const pausedBox = (await until('idle', (b) => b?.status === 'paused', 'idle paused'))!;
    assert.match(pausedBox.status_reason ?? '', /after 1 s idle \(auto_pause_s\)/);
    assert.equal(await frozen(idle), true);
    assert.equal(pausedBox.next_change?.action, 'stop');
    const stopped = (await until('idle', (b) => b?.status === 'stopped', 'idle stopped'))!;
    assert.match(stopped.status_reason ?? '', /after 3 s idle \(auto_stop_s\)/);

    // auto_delete counts from the stop; an update sets it (the other clocks kept).
    const updated = await ok<Box>(await t.api('PUT', `${P}/idle`, { lifecycle: { auto_delete_s: 1 } }));
    assert.deepEqual(updated.lifecycle, { auto_pause_s: 1, auto_stop_s: 3, auto_delete_s: 1, expires_at: null });
    await until('idle', (b) => b === null, 'idle deleted');
    await until('doomed', (b) => b === null, 'doomed deleted at its expiry');
    assert.ok(Date.now() >= Date.parse(expiresAt), 'not before its time');

    const lifecycle = (name: string) =>
      events.events
        .filter((e) => e.event === 'box.lifecycle')
        .map((e) => (JSON.parse(e.data) as { data: { box: string; action: string; reason: string } }).data)
        .filter((d) => d.box === name)
        .map((d) => `${d.action}:${d.reason}`);
    // Each delete's event follows its delete: wait for both, whichever came first.
    await events.waitFor(() => lifecycle('doomed').length > 0 && lifecycle('idle').length >= 3);
    assert.deepEqual(lifecycle('idle'), ['pause:idle', 'stop:idle', 'delete:auto_delete']);
    assert.deepEqual(lifecycle('doomed'), ['delete:expired']);
  } finally {
    events.close();
  }
});

test('use keeps a box awake: an exec running past auto_pause_s is not frozen under it', async () => {
  await createBox(t, P, { name: 'busy', lifecycle: { auto_pause_s: 1 } });
  const ran = await ok<{ stdout: string }>(
    await t.api('POST', `${P}/busy/exec`, { command: ['sh', '-c', 'sleep 2; echo done'] }),
  );
  assert.equal(ran.stdout, 'done\n');
  await until('busy', (b) => b?.status === 'paused', 'busy paused once idle');
});
