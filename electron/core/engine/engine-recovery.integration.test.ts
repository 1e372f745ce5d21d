import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrivateEngine, withPrivateEngineCore } from '../../../test-support/private-engine';
import type { TestCore } from '../../../test-support/test-core';

const skip = PrivateEngine.unavailableReason();
if (skip) console.warn(`SKIPPED engine recovery test: ${skip}`);

let engine: PrivateEngine;
let t: TestCore;

withPrivateEngineCore(skip, (e, core) => ([engine, t] = [e, core]));

async function healthWithin(
  ms: number,
  wanted: number,
): Promise<{ status: number; body: { status: string; cluster: { status: string; reason?: string } } }> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await fetch(`${t.url}/healthz`);
    const body = (await res.json()) as { status: string; cluster: { status: string; reason?: string } };
    if (res.status === wanted || Date.now() > deadline) return { status: res.status, body };
    await new Promise((r) => setTimeout(r, 200));
  }
}

test(
  'stopping the engine turns /healthz 503 degraded; starting it brings 200 back without restarting the core',
  { skip: skip ?? false },
  async () => {
    assert.equal((await healthWithin(5000, 200)).status, 200);

    await engine.stop();
    const down = await healthWithin(10_000, 503);
    assert.equal(down.status, 503);
    assert.equal(down.body.status, 'degraded');
    assert.equal(down.body.cluster.status, 'unreachable');
    assert.ok(down.body.cluster.reason, 'says why');
    const create = await t.api('POST', '/v1/projects/p/boxes', { name: 'while-down' });
    assert.equal(create.status, 503);
    assert.equal(((await create.json()) as { code: string }).code, 'engine_unavailable');
    assert.equal((await t.api('GET', '/v1/projects/p/boxes')).status, 200, 'the API keeps serving the store');

    await engine.start();
    const up = await healthWithin(20_000, 200);
    assert.equal(up.status, 200);
    assert.equal(up.body.status, 'ok');
    const version = (await (await fetch(`${t.url}/version`)).json()) as { engine: { version: string | null } };
    assert.ok(version.engine.version, 'engine version known again');
  },
);
