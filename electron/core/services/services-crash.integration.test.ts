import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../../../test-support/core-process';
import { waitFor } from '../../../test-support/docker';
import { previewRequest } from '../../../test-support/preview-http';
import {
  createVersionService,
  type Deployment,
  json,
  SERVES_NOTHING,
  type Service,
  versionServer,
} from '../../../test-support/services';

// kill -9 of the real core in the middle of a deployment, then a start on the same data dir:
// exactly one color is live (never two, never one whose box is gone) and its box serves the URL.

const dataDir = tempDataDir();
let core: CoreProcess;
const project = `crash${randomBytes(3).toString('hex')}`;
const S = `/v1/projects/${project}/services`;
const B = `/v1/projects/${project}/boxes`;
const call = (method: string, path: string, body?: unknown) => api(core, method, path, body);
const proxyPort = async () => Number(new URL((await json<Service>(call('GET', `${S}/app`), 200)).url).port);

before(async () => {
  core = await startCoreProcess({ dataDir });
  const { first } = await createVersionService(call, S, { name: 'app', command: versionServer({ slowSeconds: 60 }) });
  assert.equal(first.status, 'live');
});
after(async () => {
  await call('DELETE', `${S}/app`);
  await core.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function restart(): Promise<void> {
  await core.kill();
  core = await startCoreProcess({ dataDir });
}

/** Once recovery ran: the live deployment, the service's boxes, and what the URL serves. */
async function settledState(): Promise<{ live: Deployment[]; boxes: string[]; body: string }> {
  const boxes = await waitFor(
    async () => {
      const boxes = (await json<{ items: Box[] }>(call('GET', B), 200)).items;
      return boxes.length === 1 && boxes[0]!.status === 'running' ? boxes.map((b) => b.name) : undefined;
    },
    30_000,
    'exactly one box of the service, running',
  );
  const { items } = await json<{ items: Deployment[] }>(call('GET', `${S}/app/deployments`), 200);
  const answer = await previewRequest(await proxyPort(), `app--${project}.localhost`, '/');
  return { live: items.filter((d) => d.status === 'live'), boxes, body: answer.body };
}

test('killed while the new color is being health-checked: it fails, the old color stays live and serves', async () => {
  const queued = await json<Deployment>(
    call('POST', `${S}/app/deployments`, { command: SERVES_NOTHING, environment: { VERSION: '2' } }),
    202,
  );
  await waitFor(
    async () => {
      const d = await json<Deployment>(call('GET', `${S}/app/deployments/${queued.id}`), 200);
      return d.status === 'starting' && /^health check/.test(d.step ?? '');
    },
    30_000,
    'the deployment probing its box',
  );
  await restart();
  const cut = await json<Deployment>(call('GET', `${S}/app/deployments/${queued.id}`), 200);
  assert.equal(cut.status, 'failed');
  assert.match(cut.reason ?? '', /core stopped/);
  const state = await settledState();
  assert.deepEqual(
    state.live.map((d) => d.environment.VERSION),
    ['1'],
  );
  assert.deepEqual(state.boxes, ['app-blue']);
  assert.equal(state.body, 'v1\n');
});

test('killed while the old color drains: the switch stands, the new color is live, the old box goes', async () => {
  const port = await proxyPort();
  // Holds the drain: a request to the live color that answers after a minute.
  const held = previewRequest(port, `app--${project}.localhost`, '/cgi-bin/slow').catch(() => null);
  const queued = await json<Deployment>(
    call('POST', `${S}/app/deployments`, {
      command: versionServer({ slowSeconds: 60 }),
      environment: { VERSION: '3' },
    }),
    202,
  );
  await waitFor(
    async () =>
      /^draining app-blue/.test(
        (await json<Deployment>(call('GET', `${S}/app/deployments/${queued.id}`), 200)).step ?? '',
      ),
    30_000,
    'the old color draining',
  );
  await restart();
  await held;
  const state = await settledState();
  assert.deepEqual(
    state.live.map((d) => [d.id, d.step]),
    [[queued.id, null]],
  );
  assert.deepEqual(state.boxes, ['app-green']);
  assert.equal(state.body, 'v3\n');
  assert.equal((await json<Service>(call('GET', `${S}/app`), 200)).active_deployment?.id, queued.id);
});
