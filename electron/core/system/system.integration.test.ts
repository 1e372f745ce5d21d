import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { onPodman } from '../../../test-support/docker';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { discoverEngine } from '../engine/discovery';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

test('GET /v1/system names the data dir and what the engine can give a box', async () => {
  const res = await t.api('GET', '/v1/system');
  assert.equal(res.status, 200);
  const body = (await res.json()) as {
    data_dir: string;
    version: string;
    engine: {
      up: boolean;
      cpus: number | null;
      memory_bytes: number | null;
      name: string;
      endpoint: { url: string; found_by: string };
    };
  };
  assert.equal(body.data_dir, t.dataDir);
  assert.equal(body.engine.up, true);
  // The engine this machine's tests run on, found as a user's would be, and said how.
  const local = discoverEngine();
  assert.deepEqual(body.engine.endpoint, { url: local.url, found_by: local.foundBy });
  assert.match(
    body.engine.endpoint.found_by,
    /^(DOCKER_HOST|the Docker context ".+"|.*Docker's socket|Podman's socket .*)$/,
  );
  assert.ok(
    body.engine.cpus !== null && body.engine.cpus >= 1 && body.engine.cpus <= os.cpus().length * 4,
    `cpus ${body.engine.cpus}`,
  );
  assert.ok(body.engine.memory_bytes !== null && body.engine.memory_bytes > 64 * 1024 * 1024);
  // Which engine answers (the Podman lane points the tests at Podman), said alike by every route.
  const expected = (await onPodman()) ? 'podman' : 'docker';
  const version = (await (await fetch(`${t.url}/version`)).json()) as { engine: { name: string } };
  const health = (await (await fetch(`${t.url}/healthz`)).json()) as { cluster: { engine: string } };
  assert.deepEqual([body.engine.name, version.engine.name, health.cluster.engine], [expected, expected, expected]);
});

test('GET /v1/system needs a token (it names a path on this machine)', async () => {
  const res = await fetch(`${t.url}/v1/system`);
  assert.equal(res.status, 401);
});
