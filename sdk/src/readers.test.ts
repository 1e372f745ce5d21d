import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEvents, readServerSentEvents, type ServerSentEvent } from '../../shared/calls/event-stream';

async function* oneByteAtATime(text: string): AsyncGenerator<Uint8Array> {
  for (const b of Buffer.from(text)) yield Uint8Array.of(b);
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

test('messages split anywhere come out whole; comments, retry and keep-alives are skipped', async () => {
  const text = ': boxdesk events\nretry: 2000\n\nid: 1-1\nevent: box.status\ndata: {"a":\ndata: 1}\n\n: keep-alive\n\n';
  assert.deepEqual(await collect(readServerSentEvents(oneByteAtATime(text))), [
    { id: '1-1', event: 'box.status', data: '{"a":\n1}' },
  ] satisfies ServerSentEvent[]);
});

test('CRLF and CR line ends, a message without a name, a web ReadableStream body', async () => {
  const body = new Blob(['data: a\r\ndata: b\r\n\r\ndata: c\r\r']).stream();
  assert.deepEqual(await collect(readServerSentEvents(body)), [
    { event: 'message', data: 'a\nb' },
    { event: 'message', data: 'c' },
  ]);
});

test("Boxdesk's events: parsed, ids handed over, reset passed on, anything else skipped", async () => {
  const ids: string[] = [];
  const text =
    'id: 7\nevent: box.status\ndata: {"type":"box.status","project":"default","data":{}}\n\n' +
    'event: reset\ndata: {}\n\n' +
    'data: not json\n\n' +
    'data: {"no":"type"}\n\n';
  const events = await collect(readEvents(oneByteAtATime(text), (id) => ids.push(id)));
  assert.deepEqual(events, [{ type: 'box.status', project: 'default', data: {} }, { type: 'reset' }]);
  assert.deepEqual(ids, ['7']);
});
