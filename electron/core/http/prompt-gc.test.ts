import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COLLECT_EVERY, canCollect, promptCollector } from './prompt-gc';

test('a transfer collects once every COLLECT_EVERY bytes passed, whatever its chunk sizes', () => {
  const chunk = 64 * 1024;
  let runs = 0;
  const count = promptCollector(COLLECT_EVERY, () => runs++);
  for (let i = 0; i < COLLECT_EVERY / chunk - 1; i++) count(chunk); // one chunk short
  assert.equal(runs, 0);
  count(chunk);
  assert.equal(runs, 1);
  count(2.5 * COLLECT_EVERY); // one large chunk: once, the rest carried over
  assert.equal(runs, 2);
  count(COLLECT_EVERY / 2 - 1);
  assert.equal(runs, 2);
  count(1);
  assert.equal(runs, 3);
});

test("V8's own collector can be had here, and a collection runs", () => {
  assert.ok(canCollect(), 'the --expose-gc flag took, and a new context has gc()');
  const count = promptCollector(1);
  count(1);
});
