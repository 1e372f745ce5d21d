import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { getBox, startMemoryCore, until, untilStatus, type MemoryCore } from '../../../test-support/memory-core';

// The engine going away and coming back, above the driver: the monitor, the degraded
// answers, and the reconciler subscribing again by itself. (That the Docker driver notices
// a real dockerd stopping is engine-recovery.integration.test.ts.)

let t: MemoryCore;
const P = '/v1/projects/outage/boxes';

before(async () => {
  t = await startMemoryCore();
});
after(() => t.close());

async function health(): Promise<{
  status: number;
  body: { status: string; cluster: { status: string; reason?: string } };
}> {
  const res = await fetch(`${t.url}/healthz`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; cluster: { status: string; reason?: string } },
  };
}

test('an engine that goes away: /healthz 503 saying why, 503 for what needs it, records still read; back: 200 and events acted on again', async () => {
  const box = (await (await t.api('POST', P, { name: 'survivor' })).json()) as Box;
  assert.equal((await health()).status, 200);

  t.engine.setReachable(false);
  const down = await until(async () => {
    const h = await health();
    return h.status === 503 ? h : null;
  }, '/healthz to turn 503');
  assert.deepEqual([down.body.status, down.body.cluster.status], ['degraded', 'unreachable']);
  assert.match(down.body.cluster.reason ?? '', /engine/);
  const create = await t.api('POST', P, { name: 'while-down' });
  assert.equal(create.status, 503);
  assert.equal(((await create.json()) as { code: string }).code, 'engine_unavailable');
  assert.equal((await getBox(t, `${P}/survivor`)).status, 'running', 'the store keeps answering');

  t.engine.setReachable(true);
  await until(async () => (await health()).status === 200, '/healthz to be 200 again');
  // The core watches the engine's events again: a container removed now turns its box to error.
  const [c] = await t.engine.listContainers({ 'boxdesk.id': box.id });
  await t.engine.removeContainer(c!.id);
  assert.match((await untilStatus(t, `${P}/survivor`, 'error')).status_reason ?? '', /removed outside Boxdesk/);
});
