import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isEngineError, tarOf, untar, type Contract } from './harness';

/** Archive calls: put, get, stat, remove and changes, on running and stopped containers alike. */
export function fileCases(c: () => Contract): void {
  for (const which of ['running', 'stopped'] as const) {
    test(`archive put → stat → get round trip on a ${which} container, and the change it makes`, async () => {
      const { engine } = c();
      const id = c()[which];
      await engine.putArchive(id, '/tmp', tarOf({ [`${which}.txt`]: `hello ${which}\n` }));
      const stat = await engine.statPath(id, `/tmp/${which}.txt`);
      assert.deepEqual(
        { name: stat?.name, type: stat?.type, size: stat?.size, mode: stat?.mode, linkTarget: stat?.linkTarget },
        { name: `${which}.txt`, type: 'file', size: `hello ${which}\n`.length, mode: 0o640, linkTarget: null },
      );
      assert.ok(!Number.isNaN(Date.parse(stat!.mtime)));
      assert.deepEqual(
        { type: (await engine.statPath(id, '/tmp'))?.type, name: (await engine.statPath(id, '/'))?.name },
        { type: 'directory', name: '/' },
      );
      assert.equal(await engine.statPath(id, '/tmp/nothing-here'), null);
      assert.equal(await engine.statPath(id, '/no/such/dir/file'), null);
      const files = await untar(await engine.getArchive(id, `/tmp/${which}.txt`));
      assert.equal(files[`${which}.txt`]?.content, `hello ${which}\n`);
      const changes = await engine.containerChanges(id);
      assert.ok(
        changes.some((x) => x.path === `/tmp/${which}.txt` && x.kind === 'added'),
        JSON.stringify(changes),
      );
      assert.ok(
        changes.some((x) => x.path === '/tmp' && x.kind === 'changed'),
        JSON.stringify(changes),
      );
    });
  }

  nameCases(c);
  removalCases(c);
}

/** How archives name what they hold; writing into a container. */
function nameCases(c: () => Contract): void {
  test('getArchive names entries after the path’s last part (`./` for a trailing /.); a symlink is itself', async () => {
    const { engine, stopped } = c();
    await engine.putArchive(
      stopped,
      '/tmp',
      tarOf({ 'get/d/e/f.txt': 'deep', 'get/link': { type: 'symlink', target: '/etc/passwd' } }),
    );
    // Podman names a directory without its trailing slash, and the contents of `/.` without `./` and without an entry for it (docs/engines.md).
    const podman = engine.name === 'podman';
    const tree = await untar(await engine.getArchive(stopped, '/tmp/get/d'));
    assert.deepEqual(Object.keys(tree), podman ? ['d', 'd/e', 'd/e/f.txt'] : ['d/', 'd/e/', 'd/e/f.txt']);
    assert.equal(tree['d/e/f.txt']?.content, 'deep');
    const contents = await untar(await engine.getArchive(stopped, '/tmp/get/d/.'));
    assert.deepEqual(Object.keys(contents), podman ? ['e', 'e/f.txt'] : ['./', './e/', './e/f.txt']);
    const link = await untar(await engine.getArchive(stopped, '/tmp/get/link'));
    assert.deepEqual(link.link, { type: 'symlink', content: '', linkname: '/etc/passwd' });
    const stat = await engine.statPath(stopped, '/tmp/get/link');
    assert.deepEqual([stat?.type, stat?.linkTarget], ['symlink', '/etc/passwd']);
    await assert.rejects(engine.getArchive(stopped, '/tmp/get/missing'), isEngineError('not_found'));
  });

  test('putArchive: parents made 0755, a directory entry keeps what the directory holds, names resolve inside the target', async () => {
    const { engine, stopped } = c();
    await engine.putArchive(stopped, '/tmp', tarOf({ 'put/a/b/c.txt': 'c' }));
    assert.deepEqual(
      [(await engine.statPath(stopped, '/tmp/put/a/b'))?.type, (await engine.statPath(stopped, '/tmp/put/a/b'))?.mode],
      ['directory', 0o755],
    );
    await engine.putArchive(stopped, '/tmp', tarOf({ 'put/a': { type: 'directory', mode: 0o700 } }));
    assert.equal((await engine.statPath(stopped, '/tmp/put/a'))?.mode, 0o700);
    assert.equal((await engine.statPath(stopped, '/tmp/put/a/b/c.txt'))?.size, 1, 'kept');
    await engine.putArchive(stopped, '/tmp/put', tarOf({ '/abs.txt': 'abs' }));
    assert.equal((await engine.statPath(stopped, '/tmp/put/abs.txt'))?.type, 'file');
    assert.equal(await engine.statPath(stopped, '/abs.txt'), null);
    // Docker refuses a name that leaves the target; Podman writes it inside the target (docs/engines.md).
    const escape = engine.putArchive(stopped, '/tmp/put', tarOf({ '../../escape.txt': 'x' }));
    if (engine.name !== 'podman') await assert.rejects(escape, (err: Error) => /outside/.test(err.message));
    else
      await escape.then(async () =>
        assert.equal((await engine.statPath(stopped, '/tmp/put/escape.txt'))?.type, 'file'),
      );
    assert.equal(await engine.statPath(stopped, '/escape.txt'), null);
    await engine.putArchive(stopped, '/tmp/put', tarOf({ via: { type: 'symlink', target: '/tmp/put/a' } }));
    await engine.putArchive(stopped, '/tmp/put/via', tarOf({ 'through-link.txt': 'x' }));
    assert.equal((await engine.statPath(stopped, '/tmp/put/a/through-link.txt'))?.type, 'file');
  });
}

/** What putArchive refuses; removing; what changed. */
function removalCases(c: () => Contract): void {
  test('putArchive never replaces a directory with a non-directory or the reverse (invalid); a missing or non-directory target fails', async () => {
    const { engine, stopped } = c();
    await engine.putArchive(stopped, '/tmp', tarOf({ 'kinds/dir/inner.txt': 'i', 'kinds/file.txt': 'f' }));
    await assert.rejects(
      engine.putArchive(stopped, '/tmp', tarOf({ 'kinds/dir': 'not a dir' })),
      isEngineError('invalid'),
    );
    await assert.rejects(
      engine.putArchive(stopped, '/tmp', tarOf({ 'kinds/file.txt': { type: 'directory' } })),
      isEngineError('invalid'),
    );
    assert.equal((await engine.statPath(stopped, '/tmp/kinds/dir/inner.txt'))?.type, 'file');
    assert.equal((await engine.statPath(stopped, '/tmp/kinds/file.txt'))?.type, 'file');
    await engine.putArchive(stopped, '/tmp', tarOf({ 'kinds/file.txt': 'replaced' }));
    assert.equal((await engine.statPath(stopped, '/tmp/kinds/file.txt'))?.size, 'replaced'.length);
    // Podman makes a missing target directory; Docker refuses it (docs/engines.md).
    const missing = engine.putArchive(stopped, '/no-such-dir', tarOf({ x: 'x' }));
    if (engine.name !== 'podman') await assert.rejects(missing, (err: Error) => err.name === 'EngineError');
    else await missing.then(async () => assert.equal((await engine.statPath(stopped, '/no-such-dir/x'))?.type, 'file'));
    await assert.rejects(engine.putArchive(stopped, '/tmp/kinds/file.txt', tarOf({ x: 'x' })), (err: Error) =>
      /not a directory/.test(err.message),
    );
  });

  test('removePath: a tree recursively, a symlink and not its target, a long name; a missing path is fine; `/` is refused', async () => {
    const { engine, running } = c();
    // Podman removes in a running container only (an exec): a stopped one is a 409 naming it (docs/engines.md).
    const podman = engine.name === 'podman';
    if (podman)
      await assert.rejects(
        engine.removePath(c().stopped, '/tmp/x'),
        (err: Error) => isEngineError('conflict')(err) && /Podman/.test(err.message),
      );
    const stopped = podman ? running : c().stopped;
    const long = 'n'.repeat(150);
    await engine.putArchive(
      stopped,
      '/tmp',
      tarOf({
        'rm/a/b.txt': 'b',
        'rm/c.txt': 'c',
        [`rm-${long}`]: 'long',
        'rm-keep.txt': 'k',
        'rm-link': { type: 'symlink', target: '/tmp/rm-keep.txt' },
      }),
    );
    await engine.removePath(stopped, '/tmp/rm');
    await engine.removePath(stopped, `/tmp/rm-${long}`);
    await engine.removePath(stopped, '/tmp/rm-link');
    await engine.removePath(stopped, '/tmp/rm-never-was');
    assert.deepEqual(
      await Promise.all(['/tmp/rm', `/tmp/rm-${long}`, '/tmp/rm-link'].map((p) => engine.statPath(stopped, p))),
      [null, null, null],
    );
    assert.equal((await engine.statPath(stopped, '/tmp/rm-keep.txt'))?.type, 'file', 'the target stays');
    await assert.rejects(engine.removePath(stopped, '/'), isEngineError('invalid'));
  });

  test('changes: none in a fresh container; a file of the image removed is deleted, its directory changed', async () => {
    const { engine, create } = c();
    const podman = engine.name === 'podman';
    const id = await create('changes', podman ? ['sleep', '600'] : ['true']);
    assert.deepEqual(await engine.containerChanges(id), []);
    // Podman removes in a running container only.
    if (podman) await engine.startContainer(id);
    await engine.removePath(id, '/etc/passwd');
    if (podman) await engine.stopContainer(id, 0);
    assert.deepEqual(await engine.containerChanges(id), [
      { path: '/etc', kind: 'changed' },
      { path: '/etc/passwd', kind: 'deleted' },
    ]);
    await engine.removeContainer(id);
  });
}
