import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { ApiError } from '../../../shared/errors';
import { gzipBomb, HOSTILE_CASES, sparseBomb, tarOf } from '../../../test-support/hostile-archives';
import { ARCHIVE_POLICIES, normaliseEntryName } from './archive-policy';
import { checkedArchive, verifyArchive, type ReadOptions } from './checked-tar';

const base = [
  { name: './', type: 'directory' as const, mode: 0o755 },
  { name: './data/', type: 'directory' as const, mode: 0o755 },
  { name: './data/file', body: 'content\n' },
];

async function status(bytes: Buffer, options: ReadOptions): Promise<number> {
  try {
    await verifyArchive(Readable.from([bytes]), options);
    return 200;
  } catch (err) {
    assert.ok(err instanceof ApiError, `not a problem: ${String(err)}`);
    return err.status;
  }
}

async function entriesOf(stream: Readable): Promise<{ name: string; type: string; mode: number; linkname: string }[]> {
  const out: { name: string; type: string; mode: number; linkname: string }[] = [];
  const extract = tar.extract();
  stream.pipe(extract as unknown as NodeJS.WritableStream);
  for await (const entry of extract) {
    const { name, type, mode, linkname } = entry.header;
    out.push({ name, type, mode, linkname });
    entry.resume();
  }
  return out;
}

test('entry names: ./ prefixes dropped, absolute and .. names refused', () => {
  assert.equal(normaliseEntryName('./a/b/'), 'a/b');
  assert.equal(normaliseEntryName('./'), '');
  assert.equal(normaliseEntryName('.'), '');
  assert.equal(normaliseEntryName('/etc/passwd'), null);
  assert.equal(normaliseEntryName('a/../../b'), null);
  assert.equal(normaliseEntryName('a//b'), null);
});

test('every hostile entry is refused by the rootfs and backup policies, and left out of a files archive', async () => {
  for (const c of HOSTILE_CASES) {
    const bytes = await tarOf([...base, ...c.entries]);
    assert.equal(await status(bytes, { policy: ARCHIVE_POLICIES.rootfs }), 400, `rootfs: ${c.name}`);
    assert.equal(await status(bytes, { policy: ARCHIVE_POLICIES.backup }), 400, `backup: ${c.name}`);
    const { tar: out, done } = checkedArchive(Readable.from([bytes]), { policy: ARCHIVE_POLICIES.filesArchive });
    const [entries] = await Promise.all([entriesOf(out), done]);
    assert.deepEqual(
      entries.map((e) => e.name),
      ['./', 'data/', 'data/file'],
      `files archive: ${c.name}`,
    );
  }
});

test('a root filesystem keeps setuid files, absolute symlinks and hard links to earlier files; a backup refuses setuid', async () => {
  const rootfs = await tarOf([
    ...base,
    { name: 'bin/', type: 'directory', mode: 0o755 },
    { name: 'bin/su', mode: 0o4755, body: 'setuid\n' },
    { name: 'bin/sh', type: 'symlink', linkname: '/bin/busybox' },
    { name: 'bin/su2', type: 'link', linkname: 'bin/su' },
    { name: 'shared/', type: 'directory', mode: 0o2775 },
  ]);
  const { tar: out, done } = checkedArchive(Readable.from([gzipSync(rootfs)]), { policy: ARCHIVE_POLICIES.rootfs });
  const [entries, figures] = await Promise.all([entriesOf(out), done]);
  assert.equal(figures.entries, 8);
  const byName = new Map(entries.map((e) => [e.name, e]));
  assert.equal(byName.get('bin/su')?.mode, 0o4755);
  assert.equal(byName.get('bin/sh')?.linkname, '/bin/busybox');
  assert.equal(byName.get('bin/su2')?.type, 'link');
  assert.equal(byName.get('shared/')?.mode, 0o2775);
  assert.equal(await status(rootfs, { policy: ARCHIVE_POLICIES.backup }), 400, 'a setuid file in a backup');
  // A hard link's header mode would be applied to the shared inode by the engine: the file's own mode is written instead.
  const linkSetuid = await tarOf([...base, { name: 'data/again', type: 'link', linkname: 'data/file', mode: 0o4755 }]);
  const relinked = checkedArchive(Readable.from([linkSetuid]), { policy: ARCHIVE_POLICIES.backup });
  const [linked] = await Promise.all([entriesOf(relinked.tar), relinked.done]);
  assert.equal(linked.find((e) => e.name === 'data/again')?.mode, 0o644);
  const setgidDir = await tarOf([...base, { name: 'shared/', type: 'directory', mode: 0o2775 }]);
  assert.equal(await status(setgidDir, { policy: ARCHIVE_POLICIES.backup }), 200, 'a setgid directory is fine');
});

test('bombs: the bound is on the bytes an archive unpacks to, a sparse file counted at its length', async () => {
  const MiB = 1024 * 1024;
  const bomb = gzipBomb(64 * MiB);
  assert.ok(bomb.length < MiB / 4, `the bomb is small on the wire (${bomb.length} bytes)`);
  const bounded = { policy: ARCHIVE_POLICIES.rootfs, limit: 16 * MiB, limitName: '--upload-limit' };
  assert.equal(await status(bomb, bounded), 413);
  for (const format of ['gnu', 'posix'] as const) {
    const sparse = sparseBomb(format, 4 * 1024 * MiB);
    assert.ok(sparse.length < 64 * 1024, `${format}: ${sparse.length} bytes on the wire`);
    assert.equal(await status(sparse, bounded), 413, `${format} sparse bomb`);
    assert.equal(await status(gzipSync(sparse), bounded), 413, `${format} sparse bomb, gzipped`);
    // Under the bound a sparse file is still refused: the engine would write out every hole.
    assert.equal(await status(sparse, { policy: ARCHIVE_POLICIES.rootfs }), 400, `${format} sparse file`);
  }
});

test('damaged and foreign archives are 400s naming the archive, never a stray error', async () => {
  const good = gzipSync(await tarOf(base));
  assert.equal(await status(good.subarray(0, good.length - 12), { policy: ARCHIVE_POLICIES.backup }), 400);
  assert.equal(
    await status(Buffer.from('not a tar at all, just some text\n'.repeat(40)), { policy: ARCHIVE_POLICIES.rootfs }),
    400,
  );
  const xz = Buffer.concat([Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), Buffer.alloc(100)]);
  assert.equal(await status(xz, { policy: ARCHIVE_POLICIES.rootfs }), 400);
  assert.equal(await status(Buffer.alloc(0), { policy: ARCHIVE_POLICIES.rootfs }), 200, 'empty: no entries');
});
