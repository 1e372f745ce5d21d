import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../../shared/errors';
import { NO_LIFECYCLE } from '../../../../shared/schemas/box-lifecycle';
import { mergeLifecycle, nextChange, type ClockFacts } from './clock-rules';
import { BoxUsage, USAGE_WRITE_MS } from './usage';

const T = Date.parse('2026-11-26T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const facts = (over: Partial<ClockFacts> & { life?: object }): ClockFacts => ({
  status: 'running',
  lifecycle: JSON.stringify({ ...NO_LIFECYCLE, ...over.life }),
  lastUsedMs: T,
  statusSinceMs: T,
  inUse: false,
  ...over,
});

test('idle: the earlier of pause and stop, counted from the last use; a paused box only stops', () => {
  assert.deepEqual(nextChange(facts({ life: { auto_pause_s: 10, auto_stop_s: 60 } })), {
    action: 'pause',
    reason: 'idle',
    at: iso(T + 10_000),
  });
  assert.deepEqual(nextChange(facts({ status: 'paused', life: { auto_pause_s: 10, auto_stop_s: 60 } })), {
    action: 'stop',
    reason: 'idle',
    at: iso(T + 60_000),
  });
  // A stop due first makes the pause moot.
  assert.equal(nextChange(facts({ life: { auto_pause_s: 60, auto_stop_s: 60 } }))?.action, 'stop');
});

test('a box in use, stopped, mid-transition or in error has no idle change', () => {
  const life = { auto_pause_s: 1, auto_stop_s: 2 };
  assert.equal(nextChange(facts({ inUse: true, life })), null);
  for (const status of ['stopped', 'stopping', 'creating', 'resuming', 'error'] as const)
    assert.equal(nextChange(facts({ status, life })), null, status);
  assert.equal(nextChange(facts({ lifecycle: null })), null);
});

test('auto_delete counts from the stop; expiry applies in any state and wins a tie', () => {
  assert.deepEqual(nextChange(facts({ status: 'stopped', statusSinceMs: T + 5000, life: { auto_delete_s: 30 } })), {
    action: 'delete',
    reason: 'auto_delete',
    at: iso(T + 35_000),
  });
  assert.equal(nextChange(facts({ status: 'running', life: { auto_delete_s: 30 } })), null);
  const expires = iso(T + 10_000);
  for (const status of ['running', 'paused', 'stopped', 'error'] as const)
    assert.deepEqual(nextChange(facts({ status, life: { expires_at: expires, auto_stop_s: 10 } })), {
      action: 'delete',
      reason: 'expired',
      at: expires,
    });
});

test('an update replaces the given fields, null clears one, and an expiry in the past is a 400', () => {
  const current = { ...NO_LIFECYCLE, auto_pause_s: 60, auto_stop_s: 600 };
  assert.deepEqual(mergeLifecycle(current, { auto_stop_s: null, auto_delete_s: 5 }, T), {
    ...current,
    auto_stop_s: null,
    auto_delete_s: 5,
  });
  assert.equal(mergeLifecycle(current, { auto_pause_s: null, auto_stop_s: null }, T), null, 'all cleared: none');
  assert.throws(
    () => mergeLifecycle(current, { expires_at: iso(T - 1) }, T),
    (err: unknown) => err instanceof ApiError && err.status === 400 && /expires_at/.test(err.message),
  );
});

test('usage: written at most once a second per box; a hold keeps the box in use until released', () => {
  let now = T;
  const writes: string[] = [];
  const store = {
    getById: () => ({}) as never,
    update: (_id: string, patch: { last_used_at?: string }) => (writes.push(patch.last_used_at!), {} as never),
  };
  const usage = new BoxUsage(store, () => now);
  usage.touch('b');
  now += USAGE_WRITE_MS / 2;
  usage.touch('b');
  assert.deepEqual(writes, [iso(T)], 'the second use within the second is not written');
  assert.equal(usage.lastUsedMs('b', null, iso(0)), T + USAGE_WRITE_MS / 2, 'but counts');
  let released = 0;
  usage.onRelease = () => released++;
  const release = usage.hold('b');
  assert.equal(usage.inUse('b'), true);
  now += USAGE_WRITE_MS;
  release();
  release();
  assert.equal(usage.inUse('b'), false);
  assert.equal(released, 1, 'released once');
  assert.equal(writes.at(-1), iso(now), 'the end of a hold is a use');
});
