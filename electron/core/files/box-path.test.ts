import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { ApiError } from '../../../shared/errors';
import { formatMode, kernelTreeOf, parseBoxPath, parseMode, resolveLink } from './box-path';
import { packEntries } from './tar-entries';

test('paths are absolute and normalised: repeated and trailing slashes go', () => {
  assert.equal(parseBoxPath('/'), '/');
  assert.equal(parseBoxPath('//etc///hosts/'), '/etc/hosts');
  assert.equal(
    parseBoxPath('/tmp/%2e%2e'),
    '/tmp/%2e%2e',
    'a literal name, decoded once by the HTTP layer, is only a name',
  );
  assert.equal(parseBoxPath('/a b/ünï/…'), '/a b/ünï/…');
});

test('relative paths, dot segments, NUL, control characters and backslashes are 400s naming the field', () => {
  for (const bad of [
    '',
    'etc/hosts',
    './x',
    '/tmp/..',
    '/tmp/../etc',
    '/./tmp',
    '/tmp/a\u0000',
    '/tmp/\n',
    '/tmp\\..\\etc',
    '..',
    `/${'a'.repeat(4096)}`,
  ]) {
    assert.throws(
      () => parseBoxPath(bad),
      (err: unknown) => err instanceof ApiError && err.status === 400 && err.errors?.[0]?.path === 'query.path',
      JSON.stringify(bad),
    );
  }
});

test('symlink targets resolve lexically inside the box: ".." at the root stays at the root', () => {
  assert.equal(resolveLink('/srv/link', 'real'), '/srv/real');
  assert.equal(resolveLink('/srv/link', '/etc'), '/etc');
  assert.equal(resolveLink('/tmp/up', '../../../../..'), '/');
  assert.equal(resolveLink('/tmp/x', '../../../etc/passwd'), '/etc/passwd');
});

test('modes: octal strings both ways', () => {
  assert.equal(parseMode(undefined), 0o644);
  assert.equal(parseMode('755'), 0o755);
  assert.equal(parseMode('04755'), 0o4755);
  assert.equal(formatMode(0o644), '0644');
  assert.equal(formatMode(0o100755), '0755', 'type bits are dropped');
  assert.equal(formatMode(0o1777), '1777');
});

test('the core never packs an entry that could leave the directory it is extracted into', () => {
  for (const name of ['../x', '/etc/passwd', 'a/../../x', 'a//b', './a', 'a/.', '', 'a\u0000b']) {
    assert.throws(
      () => packEntries([], { name, mode: 0o644, size: 1, body: Readable.from([Buffer.from('x')]) }),
      ApiError,
      JSON.stringify(name),
    );
    assert.throws(() => packEntries([{ name, mode: 0o755 }]), ApiError, JSON.stringify(name));
  }
});

test('kernelTreeOf: /proc, /sys and /dev and what is under them, nothing that merely starts alike', () => {
  for (const [p, tree] of [
    ['/proc', '/proc'],
    ['/proc/1/root/x', '/proc'],
    ['/sys/fs', '/sys'],
    ['/dev/shm/a', '/dev'],
  ] as const)
    assert.equal(kernelTreeOf(p), tree, p);
  for (const p of ['/', '/processes', '/devices/x', '/system', '/srv/proc', '/etc/hostname'])
    assert.equal(kernelTreeOf(p), null, p);
});
