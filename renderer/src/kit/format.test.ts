import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes, formatRelative } from './format';

test('bytes in binary units, one decimal past a KiB, a dash when not measured', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(1536), '1.5 KiB');
  assert.equal(formatBytes(256 * 1024 * 1024), '256.0 MiB');
  assert.equal(formatBytes(3 * 1024 ** 3), '3.0 GiB');
  assert.equal(formatBytes(2 * 1024 ** 5), '2048.0 TiB');
  assert.equal(formatBytes(null), '—');
});

test('relative times count back (or forward) in the largest whole unit', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  assert.equal(formatRelative('2026-03-01T11:59:55Z', now), 'just now');
  assert.match(formatRelative('2026-03-01T11:55:00Z', now), /5 minutes ago/);
  assert.match(formatRelative('2026-03-01T09:00:00Z', now), /3 hours ago/);
  assert.match(formatRelative('2026-02-27T12:00:00Z', now), /2 days ago/);
  assert.match(formatRelative('2026-03-01T14:00:00Z', now), /in 2 hours/);
});
