import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyedMutex, QueueWaitError } from './keyed-mutex';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

test('tasks of one key run one at a time, in arrival order', async () => {
  const mutex = new KeyedMutex();
  const order: string[] = [];
  const first = gate();
  const a = mutex.run('k', async () => {
    await first.opened;
    order.push('a');
  });
  const b = mutex.run('k', async () => void order.push('b'));
  const c = mutex.run('other', async () => void order.push('c'));
  await c;
  first.open();
  await Promise.all([a, b]);
  assert.deepEqual(order, ['c', 'a', 'b']);
});

test('a task that would wait longer than the bound is dropped with a timeout, and never runs', async () => {
  const mutex = new KeyedMutex(50);
  const busy = gate();
  let ran = false;
  const holder = mutex.run('k', () => busy.opened);
  const waiter = mutex.run('k', async () => void (ran = true));
  await assert.rejects(waiter, (err: unknown) => err instanceof QueueWaitError && err.reason === 'timeout');
  const after = mutex.run('k', async () => 'next', { maxWaitMs: Infinity });
  busy.open();
  await holder;
  assert.equal(await after, 'next', 'the queue goes on behind a dropped task');
  assert.equal(ran, false);
});

test('a task whose caller aborts while it waits is dropped and never runs', async () => {
  const mutex = new KeyedMutex();
  const busy = gate();
  let ran = false;
  const holder = mutex.run('k', () => busy.opened);
  const controller = new AbortController();
  const waiter = mutex.run('k', async () => void (ran = true), { signal: controller.signal });
  controller.abort();
  await assert.rejects(waiter, (err: unknown) => err instanceof QueueWaitError && err.reason === 'aborted');
  busy.open();
  await holder;
  await mutex.run('k', async () => undefined);
  assert.equal(ran, false);
});

test('an abort after the task started does not cut it short', async () => {
  const mutex = new KeyedMutex();
  const controller = new AbortController();
  const result = mutex.run(
    'k',
    async () => {
      controller.abort();
      await new Promise((r) => setTimeout(r, 10));
      return 'done';
    },
    { signal: controller.signal },
  );
  assert.equal(await result, 'done');
});
