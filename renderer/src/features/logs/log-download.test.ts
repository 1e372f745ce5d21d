import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLogBlob } from './log-download';

test('a log read in slices comes out whole, byte for byte, across slice boundaries', async () => {
  const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array(300 * 1024).fill(97 + (i % 26)));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const expected = Buffer.concat(Array.from({ length: 40 }, (_, i) => Buffer.alloc(300 * 1024, 97 + (i % 26))));
  const blob = await readLogBlob(body);
  assert.equal(blob.type, 'text/plain');
  assert.equal(blob.size, expected.length);
  assert.ok(Buffer.from(await blob.arrayBuffer()).equals(expected));
});

test('an empty log is an empty file', async () => {
  const blob = await readLogBlob(new ReadableStream({ start: (c) => c.close() }));
  assert.equal(blob.size, 0);
});
