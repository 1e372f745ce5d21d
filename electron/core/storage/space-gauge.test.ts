import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { SpaceGauge } from './space-gauge';
import type { StorageDriver, StoreSpace } from './storage-driver';

/** A driver whose only used call, space(), counts its measures and answers when released. */
function measuredDriver() {
  const pending: ((space: StoreSpace | Error) => void)[] = [];
  const driver = {
    measures: 0,
    space: () =>
      new Promise<StoreSpace>((resolve, reject) => {
        driver.measures++;
        pending.push((v) => (v instanceof Error ? reject(v) : resolve(v)));
      }),
    answer: (v: StoreSpace | Error) => pending.shift()!(v),
  };
  return { driver, asDriver: driver as unknown as StorageDriver };
}
const space = (usedBytes: number): StoreSpace => ({ path: '/s', sizeBytes: 100, usedBytes });
const tick = () => new Promise((r) => setImmediate(r));
const warnings: string[] = [];
const log = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => void warnings.push(line) } } }).log;

test('the first ask waits for one measure, however many ask at once; later asks within the age get it at once', async () => {
  const { driver, asDriver } = measuredDriver();
  const gauge = new SpaceGauge(log, 60_000);
  assert.equal(gauge.value, null);
  const asks = [gauge.current(asDriver), gauge.current(asDriver)];
  await tick();
  assert.equal(driver.measures, 1);
  driver.answer(space(7));
  assert.deepEqual(await Promise.all(asks), [space(7), space(7)]);
  assert.deepEqual(await gauge.current(asDriver), space(7));
  assert.equal(driver.measures, 1, 'fresh figures are not measured again');
});

test('stale figures are answered at once and refreshed behind the answer; a failed refresh keeps them', async () => {
  const { driver, asDriver } = measuredDriver();
  const gauge = new SpaceGauge(log, 0);
  const first = gauge.current(asDriver);
  await tick();
  driver.answer(space(1));
  await first;
  await new Promise((r) => setTimeout(r, 2));
  assert.deepEqual(await gauge.current(asDriver), space(1), 'the stale figures, without waiting');
  assert.equal(driver.measures, 2, 'a refresh started');
  driver.answer(new Error('engine went away'));
  await gauge.idle();
  assert.deepEqual(gauge.value, space(1));
  assert.match(warnings.join(''), /could not measure the copy-on-write store/);
  const refresh = gauge.refresh(asDriver);
  driver.answer(space(2));
  await refresh;
  assert.deepEqual(gauge.value, space(2), 'refresh() measures now');
});
