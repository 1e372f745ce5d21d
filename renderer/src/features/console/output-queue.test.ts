import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { OutputQueue } from './output-queue';

// Node has no animation frames; a timer stands in for one.
const g = globalThis as unknown as {
  requestAnimationFrame?: (cb: () => void) => number;
  cancelAnimationFrame?: (id: number) => void;
};
beforeEach(() => {
  g.requestAnimationFrame = (cb) => setTimeout(cb, 1) as unknown as number;
  g.cancelAnimationFrame = (id) => clearTimeout(id);
});
afterEach(() => {
  delete g.requestAnimationFrame;
  delete g.cancelAnimationFrame;
});

const tick = () => new Promise((r) => setTimeout(r, 5));

/** A terminal that parses only when told to, like xterm under load. */
function slowSink() {
  const writes: (Uint8Array | string)[] = [];
  const pending: (() => void)[] = [];
  return {
    writes,
    sink: { write: (d: Uint8Array | string, cb?: () => void) => (writes.push(d), cb && pending.push(cb)) },
    parse: () => pending.splice(0).forEach((cb) => cb()),
  };
}

test('a small chunk finding the terminal idle is written at once', () => {
  const s = slowSink();
  const q = new OutputQueue(s.sink);
  q.push(new Uint8Array([97]));
  assert.equal(s.writes.length, 1, 'no frame wait for an echo');
  q.push(new Uint8Array([98]));
  assert.equal(s.writes.length, 1, 'while one is being parsed, the next waits for a frame');
  q.dispose();
});

test('chunks are written in batches, in order, with at most two batches in flight', async () => {
  const s = slowSink();
  const q = new OutputQueue(s.sink);
  for (let i = 0; i < 10; i++) q.push(new Uint8Array(100 * 1024).fill(i));
  await tick();
  assert.equal(s.writes.length, 2, 'two batches, then it waits for the parser');
  const sizes = () => s.writes.map((w) => (typeof w === 'string' ? 0 : w.byteLength));
  assert.deepEqual(sizes(), [200 * 1024, 200 * 1024]);
  s.parse();
  await tick();
  s.parse();
  await tick();
  assert.deepEqual(sizes(), [200 * 1024, 200 * 1024, 200 * 1024, 200 * 1024, 200 * 1024]);
  const firstBytes = s.writes.map((w) => (w as Uint8Array)[0]);
  assert.deepEqual(firstBytes, [0, 2, 4, 6, 8]);
  q.dispose();
});

test('a flood the terminal cannot keep up with is bounded: the oldest output is dropped, with a note', async () => {
  const s = slowSink();
  const q = new OutputQueue(s.sink);
  q.push(new Uint8Array(10));
  await tick(); // one batch in flight, never parsed
  q.push(new Uint8Array(10));
  await tick(); // a second one in flight
  for (let i = 0; i < 100; i++) q.push(new Uint8Array(1024 * 1024).fill(i % 250));
  await tick();
  assert.equal(s.writes.length, 2, 'nothing more is written while the parser is busy');
  s.parse();
  await tick();
  const note = s.writes.find((w) => typeof w === 'string') as string | undefined;
  assert.match(note ?? '', /KiB of output skipped/);
  const kept = s.writes.slice(2).filter((w) => typeof w !== 'string') as Uint8Array[];
  // What survived is the newest output: the last chunk pushed was 99 % 250.
  assert.ok(
    kept.length > 0 && kept[0]![0]! >= 92,
    `the oldest chunks were dropped (first kept starts with ${kept[0]?.[0]})`,
  );
  q.dispose();
});
