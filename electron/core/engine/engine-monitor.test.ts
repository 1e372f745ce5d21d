import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EngineError } from './container-engine';
import { EngineMonitor } from './engine-monitor';
import { MemoryEngine } from './memory/memory-engine';
import { silentLog as log } from '../../../test-support/storage';

/** The in-memory engine, whose next `slowPings` pings run out of time as a busy engine's would. */
class BusyEngine extends MemoryEngine {
  slowPings = 0;
  readonly pings: (number | undefined)[] = [];

  override async ping(timeoutMs?: number): Promise<void> {
    this.pings.push(timeoutMs);
    await super.ping();
    if (this.slowPings > 0) {
      this.slowPings--;
      throw new EngineError('unavailable', `the container engine did not answer within ${timeoutMs} ms`);
    }
  }
}

test('an engine that was up and misses one ping stays up; the second ping has more time', async () => {
  const engine = new BusyEngine();
  const monitor = new EngineMonitor(engine, log);
  assert.equal((await monitor.check()).up, true);
  engine.slowPings = 1;
  engine.pings.length = 0;
  const health = await monitor.check();
  assert.equal(health.up, true, `still up: ${health.reason}`);
  assert.equal(engine.pings.length, 2);
  assert.ok(engine.pings[1]! > engine.pings[0]!, `the second ping waits longer: ${engine.pings.join(', ')}`);
  monitor.requireUp();
});

test('an engine that misses both pings, or is gone, is down with the reason; a down engine is not asked twice', async () => {
  const engine = new BusyEngine();
  const monitor = new EngineMonitor(engine, log);
  assert.equal((await monitor.check()).up, true);
  engine.slowPings = 2;
  const slow = await monitor.check();
  assert.equal(slow.up, false);
  assert.match(slow.reason ?? '', /did not answer within 10000 ms/);
  assert.throws(() => monitor.requireUp(), /unreachable/);

  engine.setReachable(false);
  engine.pings.length = 0;
  const gone = await monitor.check();
  assert.equal(gone.up, false);
  assert.match(gone.reason ?? '', /ECONNREFUSED/);
  assert.equal(engine.pings.length, 1, 'while down, one ping a check');

  engine.setReachable(true);
  assert.equal((await monitor.check()).up, true, 'back by itself');
});
