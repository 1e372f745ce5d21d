import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COLLECT_EVERY, canCollect, promptCollector } from './prompt-gc';

test('a transfer collects once every 16 MiB passed, whatever its chunk sizes', () => {
  let runs = 0;
  const count = promptCollector(COLLECT_EVERY, () => runs++);
  for (let i = 0; i < 255; i++) count(64 * 1024); // just under 16 MiB
  assert.equal(runs, 0);
  count(64 * 1024);
  assert.equal(runs, 1);
  count(40 * 1024 * 1024); // one large chunk: once, the rest carried over
  assert.equal(runs, 2);
  count(COLLECT_EVERY - 8 * 1024 * 1024 - 1);
  assert.equal(runs, 2);
  count(1);
  assert.equal(runs, 3);
});

test("V8's own collector can be had here, and a collection runs", () => {
  assert.ok(canCollect(), 'the --expose-gc flag took, and a new context has gc()');
  const count = promptCollector(1);
  count(1);
});
