import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { previewRequest } from '../../../test-support/preview-http';
import {
  createVersionService,
  type Deployment,
  json,
  settledDeployment,
  versionServer,
} from '../../../test-support/services';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

// The promise of blue/green: no request sent to the service URL fails because of a deploy or a rollback.

let t: TestCore;
const project = `zd${randomBytes(3).toString('hex')}`;
const S = `/v1/projects/${project}/services`;
const host = () => `site--${project}.localhost:${t.core.proxyPort}`;
/** A bound on the client: a few thousand requests, never an open-ended flood. */
const MAX_REQUESTS = 8000;

before(async () => {
  t = await startTestCore();
  const { first } = await createVersionService(t.api, S, { name: 'site', command: versionServer({ slowSeconds: 5 }) });
  assert.equal(first.status, 'live');
});
after(async () => {
  await t.api('DELETE', `${S}/site`);
  await t.close();
});

interface Tally {
  total: number;
  failures: string[];
  bodies: Map<string, number>;
}

/** One keep-alive client: GETs / in a loop (a pause between requests) until `stop` or the bound. */
async function clientLoop(stop: { now: boolean }, tally: Tally): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    while (!stop.now && tally.total < MAX_REQUESTS) {
      tally.total++;
      await new Promise<void>((resolve) => {
        const req = http.get(
          { host: '127.0.0.1', port: t.core.proxyPort, path: '/', headers: { host: host() }, agent },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => {
              if (res.statusCode !== 200) tally.failures.push(`HTTP ${res.statusCode}: ${body.slice(0, 200)}`);
              else tally.bodies.set(body, (tally.bodies.get(body) ?? 0) + 1);
              resolve();
            });
          },
        );
        req.on('error', (err) => {
          tally.failures.push(`error: ${err.message}`);
          resolve();
        });
      });
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    agent.destroy();
  }
}

test('a request in flight on the old color finishes before it stops (the deployment says it drains)', async () => {
  const slow = previewRequest(t.core.proxyPort, host(), '/cgi-bin/slow');
  // The slow request is on its way to v1 before the deploy starts.
  await new Promise((r) => setTimeout(r, 300));
  const queued = await json<Deployment>(t.api('POST', `${S}/site/deployments`, { environment: { VERSION: '2' } }), 202);
  let sawDrain = false;
  for (let d = queued; d.status !== 'live' || d.step !== null;) {
    sawDrain ||= /^draining site-blue \(1 request in flight\)$/.test(d.step ?? '');
    assert.notEqual(d.status, 'failed', d.reason ?? '');
    await new Promise((r) => setTimeout(r, 50));
    d = await json<Deployment>(t.api('GET', `${S}/site/deployments/${queued.id}`), 200);
  }
  const answer = await slow;
  assert.equal(answer.status, 200, answer.body);
  assert.equal(answer.body, 'slow v1\n', 'answered by the old color, which waited for it');
  assert.ok(sawDrain, 'the deployment said it was draining one request');
});

test('five deploys and a rollback under continuous traffic: 0 failed requests, every answer from a version that went live', async (ctx) => {
  const live = new Set(['v1\n', 'v2\n']);
  const tally: Tally = { total: 0, failures: [], bodies: new Map() };
  const stop = { now: false };
  const loops = [clientLoop(stop, tally), clientLoop(stop, tally)];
  try {
    for (const version of ['3', '4', '5', '6', '7']) {
      const queued = await json<Deployment>(
        t.api('POST', `${S}/site/deployments`, { environment: { VERSION: version } }),
        202,
      );
      const done = await settledDeployment(t.api, `${S}/site`, queued.id);
      assert.equal(done.status, 'live', JSON.stringify(done));
      live.add(`v${version}\n`);
    }
    const queued = await json<Deployment>(t.api('POST', `${S}/site/rollback`), 202);
    const back = await settledDeployment(t.api, `${S}/site`, queued.id);
    assert.equal(back.status, 'live', JSON.stringify(back));
    assert.equal(back.environment.VERSION, '6');
  } finally {
    stop.now = true;
    await Promise.all(loops);
  }
  ctx.diagnostic(
    `zero-downtime: ${tally.total} requests through 5 deploys and a rollback, ${tally.failures.length} failed; answers: ${JSON.stringify(Object.fromEntries(tally.bodies))}`,
  );
  assert.deepEqual(tally.failures.slice(0, 10), []);
  assert.ok(
    tally.total < MAX_REQUESTS,
    'the traffic lasted through every deploy (raise MAX_REQUESTS if a slow machine hits it)',
  );
  for (const body of tally.bodies.keys())
    assert.ok(live.has(body), `answer ${JSON.stringify(body)} is not a version that went live`);
  assert.ok(tally.bodies.has('v7\n') && tally.bodies.has('v6\n'), 'the traffic saw the deploys happen');
});
