import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeText, folderNameProblem, joinPath, modeString, parentPath, pathCrumbs, resolveLink } from './box-paths';

test('paths join, go up and split into crumbs from the root', () => {
  assert.equal(joinPath('/', 'etc'), '/etc');
  assert.equal(joinPath('/etc', 'hosts'), '/etc/hosts');
  assert.equal(parentPath('/etc/hosts'), '/etc');
  assert.equal(parentPath('/etc'), '/');
  assert.equal(parentPath('/'), '/');
  assert.deepEqual(
    pathCrumbs('/a/b').map((c) => c.path),
    ['/', '/a', '/a/b'],
  );
});

test('a symlink target resolves against its directory', () => {
  assert.equal(resolveLink('/usr/bin', '../lib/x'), '/usr/lib/x');
  assert.equal(resolveLink('/bin', '/usr/bin/busybox'), '/usr/bin/busybox');
  assert.equal(resolveLink('/', '../../etc'), '/etc');
});

test('modes read like ls', () => {
  const modes = { '0755': 'rwxr-xr-x', '0644': 'rw-r--r--', '1777': 'rwxrwxrwt', '4644': 'rwSr--r--' };
  for (const [mode, shown] of Object.entries(modes)) assert.equal(modeString(mode), shown, mode);
});

test('folder names are one segment', () => {
  assert.equal(folderNameProblem('docs'), null);
  assert.match(folderNameProblem('a/b') ?? '', /slash/);
  assert.match(folderNameProblem('..') ?? '', /exists/);
  assert.match(folderNameProblem(' ') ?? '', /name/);
});

test('binary bytes are not text', () => {
  assert.equal(decodeText(new TextEncoder().encode('héllo')), 'héllo');
  assert.equal(decodeText(new Uint8Array([0x68, 0, 0x69])), null);
  assert.equal(decodeText(new Uint8Array([0xff, 0xfe, 0x41])), null);
});
