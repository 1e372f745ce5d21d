import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { previewRequest } from '../../../test-support/preview-http';
import {
  assertBlueToGreenSteps,
  createVersionService,
  FAST_HEALTH,
  json,
  SERVES_NOTHING,
  settledDeployment,
  versionServer,
  type Deployment,
  type Service,
} from '../../../test-support/services';
import { waitFor } from '../../../test-support/docker';
import { SseClient } from '../../../test-support/sse';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
const project = `svc${randomBytes(3).toString('hex')}`;
const S = `/v1/projects/${project}/services`;
const B = `/v1/projects/${project}/boxes`;
const host = (name: string) => `${name}--${project}.localhost:${t.core.proxyPort}`;
const page = async (name: string, headers: Record<string, string> = {}) =>
  previewRequest(t.core.proxyPort, host(name), '/', { headers });

before(async () => {
  t = await startTestCore();
});
after(async () => {
  for (const s of (await json<{ items: Service[] }>(t.api('GET', S), 200)).items)
    await t.api('DELETE', `${S}/${s.name}`);
  for (const b of (await json<{ items: Box[] }>(t.api('GET', B), 200)).items) await t.api('DELETE', `${B}/${b.name}`);
  await t.api('DELETE', `/v1/projects/${project}/volumes/svcdata`);
  await t.close();
});

const createService = (name: string, extra: Record<string, unknown> = {}) =>
  createVersionService(t.api, S, { name, ...extra });

async function deploy(name: string, body: Record<string, unknown>): Promise<Deployment> {
  const queued = await json<Deployment>(t.api('POST', `${S}/${name}/deployments`, body), 202);
  assert.equal(queued.status, 'pending');
  return settledDeployment(t.api, `${S}/${name}`, queued.id);
}

const boxNames = async () => (await json<{ items: Box[] }>(t.api('GET', B), 200)).items.map((b) => b.name).sort();

describe('a service through its deployments', () => {
  test('create: 201, the first deployment goes live as web-blue, tagged, and the URL serves it', async () => {
    const { service, first } = await createService('web');
    assert.equal(service.url, `http://web--${project}.localhost:${t.core.proxyPort}`);
    assert.deepEqual(service.health_check, { path: '/', ...FAST_HEALTH });
    assert.equal(first.status, 'live', JSON.stringify(first));
    assert.equal(first.box, 'web-blue');
    assert.ok(first.live_at);
    const box = await json<Box>(t.api('GET', `${B}/web-blue`), 200);
    assert.equal(box.status, 'running');
    assert.deepEqual(box.tags, { 'boxdesk.service': 'web' });
    assert.equal((await page('web')).body, 'v1\n');
    const got = await json<Service>(t.api('GET', `${S}/web`), 200);
    assert.equal(got.active_deployment?.id, first.id);
  });

  test('deploy v2: the route switches to web-green, web-blue goes, v1 is superseded; events tell each step', async () => {
    const sse = new SseClient(`${t.url}/v1/events`, t.token);
    let v2: Deployment;
    try {
      v2 = await deploy('web', { environment: { VERSION: '2' } });
      await sse.waitFor(
        (e) =>
          e.event === 'service.updated' &&
          (JSON.parse(e.data) as { data: { service: Service } }).data.service.active_deployment?.id === v2.id,
      );
      await assertBlueToGreenSteps(sse, v2.id);
    } finally {
      sse.close();
    }
    assert.equal(v2.status, 'live', JSON.stringify(v2));
    assert.equal(v2.color, 'green');
    assert.equal((await page('web')).body, 'v2\n');
    assert.deepEqual(
      (await boxNames()).filter((n) => n.startsWith('web-')),
      ['web-green'],
    );
    const { items } = await json<{ items: Deployment[] }>(t.api('GET', `${S}/web/deployments`), 200);
    assert.deepEqual(
      items.map((d) => [d.environment.VERSION, d.status]),
      [
        ['2', 'live'],
        ['1', 'superseded'],
      ],
      'newest first',
    );
    assert.deepEqual(
      (await json<Service>(t.api('GET', `${S}/web`), 200)).environment,
      { VERSION: '2' },
      'the deploy changes are kept in the spec',
    );
  });

  test('v3 whose health check never passes: failed with the probe and the box output; v2 keeps serving; its box goes', async () => {
    await json(t.api('PUT', `${S}/web`, { health_check: { start_timeout_s: 3 } }), 200);
    const v3 = await deploy('web', { command: SERVES_NOTHING, environment: { VERSION: '3' } });
    assert.equal(v3.status, 'failed');
    assert.match(v3.reason ?? '', /last probe: GET \/ /);
    assert.match(v3.reason ?? '', /v3 starting without a server/, 'the box output is in the reason');
    assert.equal((await page('web')).body, 'v2\n');
    assert.equal((await json<Service>(t.api('GET', `${S}/web`), 200)).active_deployment?.environment.VERSION, '2');
    assert.deepEqual(
      (await boxNames()).filter((n) => n.startsWith('web-')),
      ['web-green'],
    );
  });

  test('rollback: the previous live spec (v1) goes live health-gated; v2 is rolled_back', async () => {
    const queued = await json<Deployment>(t.api('POST', `${S}/web/rollback`), 202);
    assert.equal(queued.kind, 'rollback');
    const back = await settledDeployment(t.api, `${S}/web`, queued.id);
    assert.equal(back.status, 'live', JSON.stringify(back));
    assert.equal(back.environment.VERSION, '1');
    assert.equal((await page('web')).body, 'v1\n');
    const { items } = await json<{ items: Deployment[] }>(t.api('GET', `${S}/web/deployments`), 200);
    assert.deepEqual(
      items.map((d) => d.status),
      ['live', 'failed', 'rolled_back', 'superseded'],
    );
    assert.equal(
      (await json<Service>(t.api('GET', `${S}/web`), 200)).environment.VERSION,
      '1',
      'the rolled-back spec is the spec again',
    );
  });

  test('auth: token by default rules; a PUT to public applies at once, the rest waits for the next deploy', async () => {
    await json(t.api('PUT', `${S}/web`, { auth: 'token', environment: { VERSION: '9' } }), 200);
    assert.equal((await page('web')).status, 401);
    assert.equal(
      (await page('web', { authorization: `Bearer ${t.token}` })).body,
      'v1\n',
      'the environment waits for a deploy',
    );
    await json(t.api('PUT', `${S}/web`, { auth: 'public' }), 200);
    assert.equal((await page('web')).body, 'v1\n');
  });

  test('delete: 204, both boxes and the route go', async () => {
    assert.equal((await t.api('DELETE', `${S}/web`)).status, 204);
    assert.equal((await t.api('GET', `${S}/web`)).status, 404);
    assert.deepEqual(
      (await boxNames()).filter((n) => n.startsWith('web-')),
      [],
    );
    assert.equal((await page('web')).status, 404);
  });
});

// The rules above the engine (bad bodies, collisions, a rollback with nothing earlier) are
// services.test.ts's, on the in-memory engine; what needs a real engine stays here.
describe('on the real engine', () => {
  test('a mounted volume keeps its data across deploys', async () => {
    await json(t.api('POST', `/v1/projects/${project}/volumes`, { name: 'svcdata' }), 201);
    const { first } = await createService('keep', {
      command: versionServer({ log: '/data/log' }),
      data_mounts: [{ name: 'svcdata', path: '/data' }],
    });
    assert.equal(first.status, 'live', JSON.stringify(first));
    const v2 = await deploy('keep', { environment: { VERSION: '2' } });
    assert.equal(v2.status, 'live', JSON.stringify(v2));
    assert.equal((await page('keep')).body, 'v1\nv2\n', 'v2 read what v1 wrote');
    assert.equal((await t.api('DELETE', `${S}/keep`)).status, 204);
  });

  test('lifecycle: the live box stops when idle; 10 requests at once start it again, every one answered 200', async () => {
    const { first } = await createService('nap', { lifecycle: { auto_stop_s: 1 } });
    assert.equal(first.status, 'live', JSON.stringify(first));
    const box = await json<Box>(t.api('GET', `${B}/nap-blue`), 200);
    assert.equal(box.lifecycle?.auto_stop_s, 1, "the service's clocks are its live box's");
    await waitFor(
      async () => (await json<Box>(t.api('GET', `${B}/nap-blue`), 200)).status === 'stopped',
      20_000,
      'the idle stop',
    );
    const answers = await Promise.all(Array.from({ length: 10 }, () => page('nap')));
    assert.deepEqual(
      answers.map((a) => `${a.status} ${a.body}`),
      answers.map(() => '200 v1\n'),
    );
    assert.equal((await json<Box>(t.api('GET', `${B}/nap-blue`), 200)).status, 'running');
    assert.equal((await t.api('DELETE', `${S}/nap`)).status, 204);
  });
});
