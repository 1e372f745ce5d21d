import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TerminalQueryFilter } from './terminal-queries';

const through = (...chunks: string[]): string => {
  const filter = new TerminalQueryFilter();
  const out = chunks.map((c) => filter.push(Buffer.from(c, 'latin1')).toString('latin1')).join('');
  return out + filter.flush().toString('latin1');
};

test('questions to the terminal go; colours, titles and text stay', () => {
  assert.equal(through('\x1b[6n~ # echo hi\r\nhi\r\n'), '~ # echo hi\r\nhi\r\n');
  assert.equal(through('a\x1b[5nb\x1b[cc\x1b[>0cd\x1b[?6ne'), 'abcde');
  assert.equal(through('\x1b]11;?\x07x\x1b]10;?\x1b\\y'), 'xy');
  const kept = '\x1b[1;32mgreen\x1b[0m \x1b]0;title\x07\x1b[?2004h\x1b[2J\x1b[H';
  assert.equal(through(kept), kept);
});

test('a query split across chunks is still removed, and an unfinished escape comes out at the end', () => {
  assert.equal(through('prompt\x1b', '[6', 'n$ '), 'prompt$ ');
  assert.equal(through('x\x1b[', '1m'), 'x\x1b[1m');
  assert.equal(through('tail\x1b['), 'tail\x1b[');
});

test('bytes that are not UTF-8 text pass unchanged', () => {
  const filter = new TerminalQueryFilter();
  const bytes = Buffer.from([0xff, 0xfe, 0x1b, 0x5b, 0x36, 0x6e, 0xc3, 0xa9]);
  assert.deepEqual([...filter.push(bytes)], [0xff, 0xfe, 0xc3, 0xa9]);
});
