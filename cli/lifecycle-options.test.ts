import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { lifecycleBody, lifecycleOptions, nextChangeText } from './lifecycle-options';

const parse = (...args: string[]) => lifecycleOptions(new Command('x').exitOverride()).parse(args, { from: 'user' });

test('durations in the usual units; none clears a clock; a flag not given is left out', () => {
  const T = Date.parse('2026-11-26T10:00:00.000Z');
  const opts = parse('--auto-pause', '10m', '--auto-stop', '1h30m', '--auto-delete', 'none', '--ttl', '8h').opts();
  assert.deepEqual(lifecycleBody(opts, T), {
    auto_pause_s: 600,
    auto_stop_s: 5400,
    auto_delete_s: null,
    expires_at: '2026-11-26T18:00:00.000Z',
  });
  assert.deepEqual(lifecycleBody(parse('--auto-stop', '90').opts(), T), { auto_stop_s: 90 });
  assert.equal(lifecycleBody(parse().opts(), T), undefined);
  for (const bad of ['10 minutes', '0', '1x', 'm', '-5s'])
    assert.throws(() => parse('--auto-pause', bad), /takes a duration such as 30s, 10m, 1h or 1d/, bad);
});

test('box ls says what happens next and when', () => {
  const T = Date.parse('2026-11-26T10:00:00.000Z');
  const at = (s: number) => new Date(T + s * 1000).toISOString();
  assert.equal(nextChangeText({ next_change: { action: 'pause', reason: 'idle', at: at(540) } }, T), 'pause in 9m');
  assert.equal(
    nextChangeText({ next_change: { action: 'delete', reason: 'expired', at: at(2 * 86400) } }, T),
    'delete in 2d (expires)',
  );
  assert.equal(nextChangeText({ next_change: null }, T), '');
});
