import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dnsLabelError, numberError, portError } from './validators';

test('names follow the DNS-label rule, said in words', () => {
  assert.equal(dnsLabelError('web-1'), null);
  assert.equal(dnsLabelError(''), 'A name is needed');
  assert.match(dnsLabelError('Web') ?? '', /lower-case letters/);
  assert.match(dnsLabelError('-web') ?? '', /lower-case letters/);
  assert.match(dnsLabelError('a'.repeat(64)) ?? '', /1–63/);
});

test('numbers: empty is the default unless required; whole unless decimals; bounded both ways', () => {
  const cpus = { what: 'CPUs', min: 1, max: 8, note: '(what the engine has)' };
  assert.equal(numberError('', cpus), null);
  assert.equal(numberError(4, cpus), null);
  assert.equal(numberError(1.5, cpus), 'CPUs must be a whole number');
  assert.equal(numberError(9, cpus), 'CPUs must be from 1 to 8 (what the engine has)');
  assert.equal(numberError(0, { ...cpus, max: null, note: undefined }), 'CPUs must be at least 1');
  assert.equal(numberError(0.2, { what: 'The interval', min: 0.1, max: 3600, decimals: true }), null);
  assert.equal(numberError('x', { what: 'The interval', min: 0.1, decimals: true }), 'The interval must be a number');
  assert.equal(portError('', 'A port is needed'), 'A port is needed');
  assert.equal(portError(70000, 'A port is needed'), 'A port must be from 1 to 65535');
  assert.equal(portError(8080, 'A port is needed'), null);
});
