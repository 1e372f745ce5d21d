import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProxyTraffic } from './proxy-traffic';

test('counts in-flight requests per container; ending one twice counts once', () => {
  const traffic = new ProxyTraffic();
  const a = traffic.begin('c1');
  const b = traffic.begin('c1');
  traffic.begin('c2');
  assert.equal(traffic.count('c1'), 2);
  a();
  a();
  assert.equal(traffic.count('c1'), 1);
  b();
  assert.equal(traffic.count('c1'), 0);
  assert.equal(traffic.count('c2'), 1);
});

test('drain resolves with 0 once the last request ends, and hears each new count', async () => {
  const traffic = new ProxyTraffic();
  const ends = [traffic.begin('c'), traffic.begin('c')];
  const heard: number[] = [];
  const drained = traffic.drain('c', 60_000, (n) => heard.push(n));
  ends[0]!();
  ends[1]!();
  assert.equal(await drained, 0);
  assert.deepEqual(heard, [2, 1]);
});

test('drain gives up after its bound (or when aborted), answering what is still in flight', async () => {
  const traffic = new ProxyTraffic();
  traffic.begin('c');
  assert.equal(await traffic.drain('c', 10, () => undefined), 1);
  const abort = new AbortController();
  const drained = traffic.drain('c', 60_000, () => undefined, abort.signal);
  abort.abort();
  assert.equal(await drained, 1);
  assert.equal(await traffic.drain('idle', 60_000, () => undefined), 0, 'nothing in flight: at once');
});
