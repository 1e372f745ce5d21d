import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mountPathError, mountsError, rowsToMounts } from './mount-rows';

test('a mount path must be absolute, not the root, not in the kernel trees and without ..', () => {
  assert.equal(mountPathError('/data'), null);
  assert.equal(mountPathError('/srv/app/data'), null);
  assert.match(mountPathError('data') ?? '', /absolute/);
  assert.match(mountPathError('/') ?? '', /root/);
  assert.match(mountPathError('//') ?? '', /root/);
  assert.match(mountPathError('/proc') ?? '', /proc/);
  assert.match(mountPathError('/dev/shm') ?? '', /dev/);
  assert.equal(mountPathError('/processes'), null, 'a sibling of /proc is fine');
  assert.match(mountPathError('/data/../etc') ?? '', /\.\./);
});

test('mount rows need a volume each, and neither a volume nor a path twice', () => {
  assert.equal(mountsError([]), null);
  assert.equal(
    mountsError([
      { name: 'a', path: '/a', read_only: false },
      { name: 'b', path: '/b', read_only: true },
    ]),
    null,
  );
  assert.match(mountsError([{ name: null, path: '/a', read_only: false }]) ?? '', /Mount 1: pick a volume/);
  assert.match(mountsError([{ name: 'a', path: 'a', read_only: false }]) ?? '', /Mount 1: An absolute path/);
  assert.match(
    mountsError([
      { name: 'a', path: '/a', read_only: false },
      { name: 'a', path: '/b', read_only: false },
    ]) ?? '',
    /a is mounted twice/,
  );
  assert.match(
    mountsError([
      { name: 'a', path: '/x', read_only: false },
      { name: 'b', path: '/x', read_only: false },
    ]) ?? '',
    /\/x is used twice/,
  );
});

test('rows become data_mounts, read_only only when set', () => {
  assert.deepEqual(
    rowsToMounts([
      { name: 'a', path: '/a', read_only: false },
      { name: 'b', path: '/b', read_only: true },
    ]),
    [
      { name: 'a', path: '/a' },
      { name: 'b', path: '/b', read_only: true },
    ],
  );
});
