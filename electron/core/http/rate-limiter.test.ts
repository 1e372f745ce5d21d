import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimiter } from './rate-limiter';

test('allows a burst, then asks to wait, then refills at the rate', () => {
  let now = 0;
  const limiter = new RateLimiter(2, 3, () => now);
  assert.deepEqual([limiter.take('a'), limiter.take('a'), limiter.take('a')], [0, 0, 0]);
  assert.equal(limiter.take('a'), 1);
  assert.equal(limiter.take('b'), 0, 'buckets are per key');
  now += 500;
  assert.equal(limiter.take('a'), 0, 'half a second refills one at 2/s');
  assert.equal(limiter.take('a'), 1);
});

test('a rate of 0 disables limiting', () => {
  const limiter = new RateLimiter(0, 0);
  for (let i = 0; i < 1000; i++) assert.equal(limiter.take('a'), 0);
});
