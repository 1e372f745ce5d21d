import type Docker from 'dockerode';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { EngineError } from '../container-engine';
import { ensureNetwork } from './networks';

// Podman lists the host's interfaces to create a network; one that goes meanwhile fails the create.
const vanished = { statusCode: 404, json: { message: 'route ip+net: no such network interface' } };

/** An engine with no such network yet, whose creates fail as `vanished` until the `okAt`-th. */
function engine(okAt: number) {
  const calls = { creates: 0 };
  const docker = {
    getNetwork: () => ({ inspect: () => Promise.reject({ statusCode: 404, json: { message: 'network not found' } }) }),
    createNetwork: () => (++calls.creates < okAt ? Promise.reject(vanished) : Promise.resolve({ id: 'net-1' })),
  } as unknown as Docker;
  return { docker, calls };
}

/** Runs `work`, moving the mocked clock on while it waits between attempts. */
async function withClock<T>(t: TestContext, work: Promise<T>) {
  let done = false;
  const settled = work.finally(() => (done = true));
  settled.catch(() => undefined); // its failure is the caller's, once the loop is done
  while (!done) {
    await new Promise((r) => setImmediate(r));
    t.mock.timers.tick(50);
  }
  return settled;
}

test('a network create that fails because a host interface went meanwhile is asked again, and made', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { docker, calls } = engine(3);
  assert.equal(await withClock(t, ensureNetwork(docker, 'boxdesk-p', {})), 'net-1');
  assert.equal(calls.creates, 3);
});

test('one that keeps failing so is given up after five attempts, as a failure, not a missing network', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { docker, calls } = engine(Infinity);
  await assert.rejects(withClock(t, ensureNetwork(docker, 'boxdesk-p', {})), (e: EngineError) => e.kind === 'failed');
  assert.equal(calls.creates, 5);
});
