import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser } from './sse-parser';

test('messages split across chunks come out whole, comments and heartbeats are skipped', () => {
  const p = new SseParser();
  assert.deepEqual(p.push(': boxdesk events\nretry: 2000\n\nid: 1-1\nevent: box.st'), []);
  assert.deepEqual(p.push('atus\ndata: {"a":1}\n\n: keep-alive\n\nevent: reset\ndata: {}\n\n'), [
    { id: '1-1', event: 'box.status', data: '{"a":1}' },
    { event: 'reset', data: '{}' },
  ]);
});

test('CRLF line ends and multi-line data', () => {
  const p = new SseParser();
  assert.deepEqual(p.push('data: a\r\ndata: b\r\n\r\n'), [{ event: 'message', data: 'a\nb' }]);
});
