import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { isEngineError, tarOf, untar, type Contract } from './harness';

/** Images: commit, import, export, labels, depth, removal. */
export function imageCases(c: () => Contract): void {
  commitCase(c);

  test('an image a container uses is kept', async () => {
    const { engine, create, labels } = c();
    const committed = await engine.commitContainer(c().stopped, { ...labels, 'contract.image': 'used' });
    const user = await create('image-user', ['true'], { image: committed });
    await engine.removeImage(committed);
    assert.ok(await engine.inspectImage(committed));
    await engine.removeContainer(user);
    await engine.removeImage(committed);
    assert.equal(await engine.inspectImage(committed), null);
  });

  test('import makes a one-layer image with the run configuration given; export of its container gives the files back', async () => {
    const { engine, create, labels } = c();
    const exported = await engine.exportContainer(c().stopped);
    const rootFiles = await untar(exported);
    assert.ok(rootFiles['bin/sh'] && rootFiles['etc/passwd'], 'the root, without a leading slash');
    const id = await engine.importImage(tarOf({ 'data/imported.txt': 'imported' }), {
      labels: { ...labels, 'contract.image': 'import' },
      config: { cmd: ['/bin/hi'], entrypoint: null, env: ['A=1'], workingDir: '/data', user: '' },
    });
    const details = (await engine.inspectImage(id))!;
    assert.deepEqual(
      [
        details.layers,
        details.parentId,
        details.labels['contract.image'],
        details.config.cmd,
        details.config.env,
        details.config.workingDir,
      ],
      [1, null, 'import', ['/bin/hi'], ['A=1'], '/data'],
    );
    const box = await create('imported', ['true'], { image: id });
    assert.deepEqual(await untar(await engine.getArchive(box, '/data/imported.txt')), {
      'imported.txt': { type: 'file', content: 'imported', linkname: null },
    });
    assert.ok(details.sizeBytes >= 'imported'.length);
    await engine.removeContainer(box);
    await engine.removeImage(id);
    await assert.rejects(
      engine.importImage(Readable.from([Buffer.from('not a tar at all '.repeat(100))]), { labels }),
      isEngineError('invalid'),
    );
    assert.equal(await engine.inspectImage(`${c().tag}/missing:1`), null);
  });
}

/** A commit, a commit on it, and their removal. */
function commitCase(c: () => Contract): void {
  test('commit: the image has the files, one layer more, the container’s labels under the given ones; it is kept while used or built on', async () => {
    const { engine, create, image, labels, running } = c();
    const base = (await engine.inspectImage(image))!;
    await engine.putArchive(running, '/tmp', tarOf({ 'committed.txt': 'in the image' }));
    const committed = await engine.commitContainer(running, { ...labels, 'contract.image': 'commit' });
    assert.equal((await engine.inspectContainer(running))?.state, 'running', 'the commit leaves it running');
    const details = (await engine.inspectImage(committed))!;
    assert.deepEqual(
      [details.layers, details.parentId, details.labels['contract.image'], details.config.cmd],
      [base.layers + 1, base.id, 'commit', ['sleep', '600']],
    );
    assert.equal(details.labels['contract.role'], 'running', 'the container’s own labels come along');
    assert.deepEqual(
      (await engine.listImages({ ...labels, 'contract.image': 'commit' })).map((i) => i.id),
      [committed],
    );
    const child = await create('commit-child', ['true'], { image: committed });
    assert.equal((await engine.statPath(child, '/tmp/committed.txt'))?.size, 'in the image'.length);
    assert.deepEqual(await engine.containerChanges(child), [], 'the file is the image’s, not a change');
    assert.equal(
      (await engine.inspectContainer(child))?.labels['contract.image'],
      'commit',
      'an image’s labels are its containers’',
    );
    const grandchild = await engine.commitContainer(child, { 'contract.image': 'grandchild' });
    // Podman adds a layer, empty, to every commit (docs/engines.md).
    const added = engine.name === 'podman' ? 2 : 1;
    assert.equal((await engine.inspectImage(grandchild))?.layers, base.layers + added, 'no changes: no layer added');
    await engine.removeContainer(child);
    await engine.removeImage(committed);
    if (engine.name === 'podman') {
      // Podman removes an image another is committed on; the other keeps the layers (docs/engines.md).
      assert.equal(await engine.inspectImage(committed), null);
      assert.equal((await engine.inspectImage(grandchild))?.layers, base.layers + 2);
    } else assert.ok(await engine.inspectImage(committed), 'kept while an image builds on it');
    await engine.removeImage(grandchild);
    await engine.removeImage(committed);
    assert.equal(await engine.inspectImage(committed), null);
    await engine.removeImage(committed); // gone: not an error
  });
}
