import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { startMemoryCore, type MemoryCore } from '../../../test-support/memory-core';
import { previewRequest } from '../../../test-support/preview-http';
import {
  assertBlueToGreenSteps,
  createVersionService,
  json,
  SERVES_NOTHING,
  settledDeployment,
  type Deployment,
  type Service,
} from '../../../test-support/services';
import { SseClient } from '../../../test-support/sse';

// ServiceManager and the Deployer through the real API, proxy and SQLite file, on the
// in-memory engine: the health probe reaches the new color through the engine's
// connect() as the proxy does, so "healthy" means the proxy can reach it.

let t: MemoryCore;
const project = 'svc';
const S = `/v1/projects/${project}/services`;
const B = `/v1/projects/${project}/boxes`;
const HEALTH = { interval_s: 0.1, timeout_s: 1, healthy_threshold: 2, start_timeout_s: 10 };
const host = (name: string) => `${name}--${project}.localhost:${t.core.proxyPort}`;
const page = async (name: string, headers: Record<string, string> = {}) =>
  previewRequest(t.core.proxyPort, host(name), '/', { headers });

/** busybox httpd on 8080 serving "v$VERSION" (appended to `log` on a volume first, when given). */
function versionServer(log?: string): string[] {
  const pageCmd = log ? `echo v$VERSION >> ${log} && cat ${log} > /srv/index.html` : 'echo v$VERSION > /srv/index.html';
  return ['sh', '-c', `mkdir -p /srv && ${pageCmd} && exec httpd -f -p 8080 -h /srv`];
}

before(async () => {
  t = await startMemoryCore();
});
after(() => t.close());

const createService = (name: string, extra: Record<string, unknown> = {}) =>
  createVersionService(t.api, S, { name, command: versionServer(), health_check: HEALTH, ...extra }, 20_000);

async function deploy(name: string, body: Record<string, unknown>): Promise<Deployment> {
  const queued = await json<Deployment>(t.api('POST', `${S}/${name}/deployments`, body), 202);
  assert.equal(queued.status, 'pending');
  return settledDeployment(t.api, `${S}/${name}`, queued.id, 20_000);
}

const boxNames = async (prefix: string) =>
  (await json<{ items: Box[] }>(t.api('GET', B), 200)).items
    .map((b) => b.name)
    .filter((n) => n.startsWith(prefix))
    .sort();

describe('a service through its deployments', () => {
  test('create: 201, the first deployment goes live as web-blue, tagged, and the URL serves it', async () => {
    const { service, first } = await createService('web');
    assert.equal(service.url, `http://web--${project}.localhost:${t.core.proxyPort}`);
    assert.deepEqual(
      [first.status, first.box, Boolean(first.live_at)],
      ['live', 'web-blue', true],
      JSON.stringify(first),
    );
    const box = await json<Box>(t.api('GET', `${B}/web-blue`), 200);
    assert.deepEqual([box.status, box.tags], ['running', { 'boxdesk.service': 'web' }]);
    assert.equal((await page('web')).body, 'v1\n');
    assert.equal((await json<Service>(t.api('GET', `${S}/web`), 200)).active_deployment?.id, first.id);
  });

  test('deploy v2: the route switches to web-green, web-blue goes, v1 is superseded; events tell each step', async () => {
    const sse = new SseClient(`${t.url}/v1/events`, t.token);
    let v2: Deployment;
    try {
      v2 = await deploy('web', { environment: { VERSION: '2' } });
      await assertBlueToGreenSteps(sse, v2.id);
    } finally {
      sse.close();
    }
    assert.deepEqual([v2.status, v2.color], ['live', 'green'], JSON.stringify(v2));
    assert.equal((await page('web')).body, 'v2\n');
    assert.deepEqual(await boxNames('web-'), ['web-green']);
    const { items } = await json<{ items: Deployment[] }>(t.api('GET', `${S}/web/deployments`), 200);
    assert.deepEqual(
      items.map((d) => [d.environment.VERSION, d.status]),
      [
        ['2', 'live'],
        ['1', 'superseded'],
      ],
    );
    assert.deepEqual((await json<Service>(t.api('GET', `${S}/web`), 200)).environment, { VERSION: '2' });
  });

  test('v3 whose health check never passes: failed with the probe and the box output; v2 keeps serving; its box goes', async () => {
    await json(t.api('PUT', `${S}/web`, { health_check: { start_timeout_s: 1 } }), 200);
    const v3 = await deploy('web', { command: SERVES_NOTHING, environment: { VERSION: '3' } });
    assert.equal(v3.status, 'failed');
    assert.match(v3.reason ?? '', /last probe: GET \/ failed: nothing listens on port 8080 in the box/);
    assert.match(v3.reason ?? '', /v3 starting without a server/, 'the box output is in the reason');
    assert.equal((await page('web')).body, 'v2\n');
    assert.equal((await json<Service>(t.api('GET', `${S}/web`), 200)).active_deployment?.environment.VERSION, '2');
    assert.deepEqual(await boxNames('web-'), ['web-green']);
  });

  test('a deploy whose command exits fails saying so; the live color is untouched', async () => {
    const v4 = await deploy('web', { command: ['sh', '-c', 'echo giving up; exit 4'], environment: { VERSION: '4' } });
    assert.equal(v4.status, 'failed');
    // Said by the box's status (the reconciler heard of the exit first) or by the engine (the gate's time ran out first).
    assert.match(
      v4.reason ?? '',
      /box "web-blue" (is error \(main process|stopped: its main process) exited with code 4 .*giving up/s,
    );
    assert.equal((await page('web')).body, 'v2\n');
    assert.deepEqual(await boxNames('web-'), ['web-green']);
  });

  test('rollback: the previous live spec (v1) goes live health-gated; v2 is rolled_back', async () => {
    await json(t.api('PUT', `${S}/web`, { health_check: { start_timeout_s: 10 } }), 200);
    const queued = await json<Deployment>(t.api('POST', `${S}/web/rollback`), 202);
    assert.equal(queued.kind, 'rollback');
    const back = await settledDeployment(t.api, `${S}/web`, queued.id, 20_000);
    assert.deepEqual([back.status, back.environment.VERSION], ['live', '1'], JSON.stringify(back));
    assert.equal((await page('web')).body, 'v1\n');
    const { items } = await json<{ items: Deployment[] }>(t.api('GET', `${S}/web/deployments`), 200);
    assert.deepEqual(
      items.map((d) => d.status),
      ['live', 'failed', 'failed', 'rolled_back', 'superseded'],
    );
    assert.equal((await json<Service>(t.api('GET', `${S}/web`), 200)).environment.VERSION, '1');
  });

  test('auth: token by default rules; a PUT to public applies at once, the rest waits for the next deploy', async () => {
    await json(t.api('PUT', `${S}/web`, { auth: 'token', environment: { VERSION: '9' } }), 200);
    assert.equal((await page('web')).status, 401);
    assert.equal((await page('web', { authorization: `Bearer ${t.token}` })).body, 'v1\n');
    await json(t.api('PUT', `${S}/web`, { auth: 'public' }), 200);
    assert.equal((await page('web')).body, 'v1\n');
  });

  test('delete: 204, both boxes and the route go', async () => {
    assert.equal((await t.api('DELETE', `${S}/web`)).status, 204);
    assert.equal((await t.api('GET', `${S}/web`)).status, 404);
    assert.deepEqual(await boxNames('web-'), []);
    assert.equal((await page('web')).status, 404);
  });
});

describe('rules', () => {
  test('bad bodies are 400 naming the field and create nothing; unknown is 404', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'Bad_Name', port: 8080 }, 'body.name'],
      [{ name: 'ok', port: 0 }, 'body.port'],
      [{ name: 'ok', port: 8080, health_check: { interval_s: 0 } }, 'body.health_check.interval_s'],
      [{ name: 'ok', port: 8080, command: [] }, 'body.command'],
      [{ name: 'ok', port: 8080, data_mounts: [{ name: 'v', path: '/' }] }, 'body.data_mounts[0].path'],
    ];
    for (const [body, path] of cases) {
      const problem = await json<{ errors: { path: string }[] }>(t.api('POST', S, body), 400);
      assert.ok(
        problem.errors.some((e) => e.path.startsWith(path)),
        `${JSON.stringify(body)}: ${JSON.stringify(problem.errors)}`,
      );
    }
    const novolume = { name: 'ok', port: 8080, data_mounts: [{ name: 'novolume', path: '/data' }] };
    assert.equal((await t.api('POST', S, novolume)).status, 404);
    assert.equal((await t.api('POST', S, { name: 'ok', port: 8080, base: 'nobase' })).status, 404);
    assert.deepEqual((await json<{ items: Service[] }>(t.api('GET', S), 200)).items, []);
    assert.equal((await t.api('GET', `${S}/nope`)).status, 404);
    assert.equal((await t.api('POST', `${S}/nope/deployments`, {})).status, 404);
  });

  test('collisions: a box named {name}-green, a published box at its URL, an existing service: 409 with a hint', async () => {
    await json(t.api('POST', B, { name: 'taken-green' }), 201);
    const boxClash = await json<{ hint: string }>(t.api('POST', S, { name: 'taken', port: 8080 }), 409);
    assert.match(boxClash.hint, /taken-green/);
    await json(t.api('POST', B, { name: 'site' }), 201);
    await json(t.api('POST', `${B}/site/publish`, { port: 8080 }), 200);
    const hostClash = await json<{ hint: string }>(t.api('POST', S, { name: 'site', port: 8080 }), 409);
    assert.match(hostClash.hint, /unpublish/);
    assert.equal((await t.api('GET', `${S}/taken`)).status, 404);
    assert.equal((await t.api('GET', `${S}/site`)).status, 404);
  });

  test('rollback with no earlier live deployment: 409; its live box cannot be deleted from under it', async () => {
    await createService('solo');
    assert.equal((await t.api('POST', `${S}/solo/rollback`)).status, 409);
    const refused = await json<{ detail: string }>(t.api('DELETE', `${B}/solo-blue`), 409);
    assert.match(refused.detail, /serves service "solo".*box service rm solo/);
    assert.equal((await page('solo')).body, 'v1\n');
    assert.equal((await t.api('POST', S, { name: 'solo', port: 8080 })).status, 409);
    assert.equal((await t.api('DELETE', `${S}/solo`)).status, 204);
  });

  test('a mounted volume keeps its data across deploys; a volume the spec names cannot be deleted', async () => {
    await json(t.api('POST', `/v1/projects/${project}/volumes`, { name: 'svcdata' }), 201);
    const { first } = await createService('keep', {
      command: versionServer('/data/log'),
      data_mounts: [{ name: 'svcdata', path: '/data' }],
    });
    assert.equal(first.status, 'live', JSON.stringify(first));
    const v2 = await deploy('keep', { environment: { VERSION: '2' } });
    assert.equal(v2.status, 'live', JSON.stringify(v2));
    assert.equal((await page('keep')).body, 'v1\nv2\n', 'v2 read what v1 wrote');
    await json(t.api('POST', `/v1/projects/${project}/volumes`, { name: 'next' }), 201);
    await json(t.api('PUT', `${S}/keep`, { data_mounts: [{ name: 'next', path: '/next' }] }), 200);
    const inSpec = await json<{ detail: string }>(t.api('DELETE', `/v1/projects/${project}/volumes/next`), 409);
    assert.match(inSpec.detail, /in the spec of service keep/);
    await json(t.api('PUT', `${S}/keep`, { data_mounts: [] }), 200);
    assert.equal((await t.api('DELETE', `/v1/projects/${project}/volumes/next`)).status, 204);
    assert.equal((await t.api('DELETE', `${S}/keep`)).status, 204);
  });
});
