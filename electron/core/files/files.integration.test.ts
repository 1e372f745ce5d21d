import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import tar from 'tar-stream';
import type { FileStat } from '../../../shared/schemas/files';
import { onPodman } from '../../../test-support/docker';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
// Podman's archive API cannot remove or rename a stopped box's files (docs/engines.md): there, a
// write to one is a 409 that says so, and the stopped-box cases run on the running box.
const podman = await onPodman();
const P = '/v1/projects/files/boxes';
const RUN = `${P}/run`;
const PARKED = `${P}/parked`;
const STOPPED = podman ? RUN : PARKED;

before(async () => {
  t = await startTestCore({ args: ['--upload-limit', '4M'] });
  for (const name of ['run', 'parked']) {
    const r = await t.api('POST', P, { name });
    assert.equal(r.status, 201, await r.text());
  }
  assert.equal((await t.api('POST', `${PARKED}/stop`)).status, 200);
});
after(async () => {
  for (const b of [RUN, PARKED]) await t.api('DELETE', b);
  await t.close();
});

const q = (p: string) => encodeURIComponent(p);

async function put(box: string, path: string, body: Uint8Array | string, query = ''): Promise<Response> {
  return fetch(`${t.url}${box}/files?path=${q(path)}${query}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body,
  });
}

async function read(box: string, path: string): Promise<Buffer> {
  const res = await t.api('GET', `${box}/files?path=${q(path)}`);
  assert.equal(res.status, 200, await res.clone().text());
  return Buffer.from(await res.arrayBuffer());
}

async function stat(box: string, path: string): Promise<Response> {
  return t.api('GET', `${box}/files/stat?path=${q(path)}`);
}

async function sh(script: string): Promise<string> {
  const res = await t.api('POST', `${RUN}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200);
  const r = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

test(
  'on Podman, a write to a stopped box is a 409 naming Podman and what to do',
  { skip: podman ? false : 'Podman only: Docker writes to a stopped box' },
  async () => {
    const res = await put(PARKED, '/parked.txt', 'x');
    assert.equal(res.status, 409);
    assert.match(((await res.json()) as { detail: string }).detail, /Podman .*start/);
  },
);

for (const [which, box] of [['running', RUN], ...(podman ? [] : [['stopped', PARKED] as const])] as const) {
  test(`binary round trip on a ${which} box: random bytes with NULs, parents created, length and type on the answer`, async () => {
    const bytes = crypto.randomBytes(1536 * 1024);
    bytes.fill(0, 1000, 3000);
    const res = await put(box, '/data/deep/er/blob.bin', bytes);
    assert.equal(res.status, 200, await res.clone().text());
    const written = (await res.json()) as FileStat;
    assert.equal(written.type, 'file');
    assert.equal(written.size, bytes.length);
    assert.equal(written.mode, '0644');
    const got = await t.api('GET', `${box}/files?path=${q('/data/deep/er/blob.bin')}`);
    assert.equal(got.headers.get('content-type'), 'application/octet-stream');
    assert.equal(got.headers.get('content-length'), String(bytes.length));
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(bytes), 'the bytes come back identical');
    const parent = (await (await stat(box, '/data/deep/er')).json()) as FileStat;
    assert.equal(parent.type, 'dir');
    assert.equal(parent.mode, '0755');
  });

  test(`overwrite, mode, stat, list, mkdir and delete on a ${which} box`, async () => {
    assert.equal((await put(box, '/work/run.sh', '#!/bin/sh\necho one\n', '&mode=0755')).status, 200);
    assert.equal((await put(box, '/work/run.sh', '#!/bin/sh\necho two\n', '&mode=750')).status, 200);
    assert.equal((await read(box, '/work/run.sh')).toString(), '#!/bin/sh\necho two\n');
    const s = (await (await stat(box, '//work//run.sh/')).json()) as FileStat;
    assert.deepEqual(
      { path: s.path, type: s.type, size: s.size, mode: s.mode },
      { path: '/work/run.sh', type: 'file', size: 19, mode: '0750' },
    );
    assert.match(s.mtime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(s.mtime) - Date.now()) < 120_000, `mtime ${s.mtime} is recent`);

    const made = await t.api('POST', `${box}/files/mkdir?path=${q('/work/sub')}`);
    assert.equal(made.status, 201, await made.clone().text());
    assert.equal(((await made.json()) as FileStat).type, 'dir');
    assert.equal(
      (await t.api('POST', `${box}/files/mkdir?path=${q('/work/sub')}`)).status,
      409,
      'an existing directory without parents',
    );
    assert.equal(
      (await t.api('POST', `${box}/files/mkdir?path=${q('/work/sub')}&parents=true`)).status,
      200,
      'mkdir -p of an existing directory',
    );
    const orphan = await t.api('POST', `${box}/files/mkdir?path=${q('/work/a/b/c')}`);
    assert.equal(orphan.status, 404);
    assert.match(((await orphan.json()) as { detail: string }).detail, /parents=true/);
    const deep = await t.api('POST', `${box}/files/mkdir?path=${q('/work/a/b/c')}&parents=true`);
    assert.equal(deep.status, 201, await deep.text());
    assert.equal(((await (await stat(box, '/work/a/b')).json()) as FileStat).type, 'dir');

    const list = await t.api('GET', `${box}/files/list?path=${q('/work')}`);
    assert.equal(list.status, 200);
    const items = ((await list.json()) as { items: FileStat[] }).items;
    assert.deepEqual(
      items.map((i) => [i.path, i.type, i.size, i.mode]),
      [
        ['/work/a', 'dir', 0, '0755'],
        ['/work/run.sh', 'file', 19, '0750'],
        ['/work/sub', 'dir', 0, '0755'],
      ],
    );

    assert.equal((await t.api('GET', `${box}/files?path=${q('/work')}`)).status, 400, 'reading a directory');
    assert.equal((await t.api('GET', `${box}/files/list?path=${q('/work/run.sh')}`)).status, 400, 'listing a file');
    assert.equal((await t.api('GET', `${box}/files?path=${q('/work/nope')}`)).status, 404);
    assert.equal((await stat(box, '/work/nope')).status, 404);
    assert.equal((await put(box, '/work/sub', 'x')).status, 400, 'a directory is never replaced by a file');
    assert.equal(((await (await stat(box, '/work/sub')).json()) as FileStat).type, 'dir');

    assert.equal((await t.api('DELETE', `${box}/files?path=${q('/work/run.sh')}`)).status, 204);
    assert.equal((await stat(box, '/work/run.sh')).status, 404);
    assert.equal((await t.api('DELETE', `${box}/files?path=${q('/work/run.sh')}`)).status, 404);
    assert.equal(
      (await t.api('DELETE', `${box}/files?path=${q('/work/sub')}`)).status,
      204,
      'an empty directory goes without recursive',
    );
    const full = await t.api('DELETE', `${box}/files?path=${q('/work')}`);
    assert.equal(full.status, 409);
    assert.match(((await full.json()) as { detail: string }).detail, /recursive=true/);
    assert.equal(((await (await stat(box, '/work/a/b/c')).json()) as FileStat).type, 'dir', 'nothing was deleted');
    assert.equal((await t.api('DELETE', `${box}/files?path=${q('/work')}&recursive=true`)).status, 204);
    assert.equal((await stat(box, '/work')).status, 404);
    assert.equal((await t.api('DELETE', `${box}/files?path=/`)).status, 400);
  });
}

test('symlinks: stat reports the link, read and list follow it, delete removes the link only', async () => {
  await sh(
    'mkdir -p /srv/real && echo linked > /srv/real/f.txt && ln -s real /srv/link && ln -s /srv/real/f.txt /srv/flink && ln -s /srv/loop1 /srv/loop2 && ln -s /srv/loop2 /srv/loop1',
  );
  const s = (await (await stat(RUN, '/srv/link')).json()) as FileStat;
  assert.deepEqual(
    { type: s.type, link_target: s.link_target, size: s.size },
    { type: 'symlink', link_target: 'real', size: 4 },
  );
  assert.equal((await read(RUN, '/srv/flink')).toString(), 'linked\n');
  assert.equal((await read(RUN, '/srv/link/f.txt')).toString(), 'linked\n');
  const items = ((await (await t.api('GET', `${RUN}/files/list?path=/srv`)).json()) as { items: FileStat[] }).items;
  assert.deepEqual(
    items.map((i) => [i.path, i.type, i.link_target]),
    [
      ['/srv/flink', 'symlink', '/srv/real/f.txt'],
      ['/srv/link', 'symlink', 'real'],
      ['/srv/loop1', 'symlink', '/srv/loop2'],
      ['/srv/loop2', 'symlink', '/srv/loop1'],
      ['/srv/real', 'dir', undefined],
    ],
  );
  assert.deepEqual(
    ((await (await t.api('GET', `${RUN}/files/list?path=/srv/link`)).json()) as { items: FileStat[] }).items.map(
      (i) => i.path,
    ),
    ['/srv/link/f.txt'],
  );
  const loop = await t.api('GET', `${RUN}/files?path=/srv/loop1`);
  assert.equal(loop.status, 400, 'a symlink loop');
  assert.match(((await loop.json()) as { detail: string }).detail, /^"\/srv\/loop1" is a symbolic link loop/);
  assert.equal((await put(RUN, '/srv/flink', 'through the link\n')).status, 200);
  assert.equal(
    await sh('cat /srv/real/f.txt; test -L /srv/flink && echo still-a-link'),
    'through the link\nstill-a-link\n',
  );
  assert.equal((await t.api('DELETE', `${RUN}/files?path=/srv/link`)).status, 204);
  assert.equal(await sh('test -e /srv/link || echo gone; cat /srv/real/f.txt'), 'gone\nthrough the link\n');
});

test('changes: added, changed and deleted paths against the base, on a stopped box too', async () => {
  await sh('echo new > /added.txt && echo more >> /etc/group && rm /etc/hostname.bak 2>/dev/null; rm -f /bin/vi');
  const items = (
    (await (await t.api('GET', `${RUN}/files/changes`)).json()) as { items: { path: string; kind: string }[] }
  ).items;
  const kind = (p: string) => items.find((i) => i.path === p)?.kind;
  assert.equal(kind('/added.txt'), 'added');
  assert.equal(kind('/etc/group'), 'changed');
  assert.equal(kind('/bin/vi'), 'deleted');
  assert.deepEqual(
    [...items.map((i) => i.path)].sort(),
    items.map((i) => i.path),
    'sorted by path',
  );
  assert.equal((await put(STOPPED, '/parked.txt', 'x')).status, 200);
  const parked = (
    (await (await t.api('GET', `${STOPPED}/files/changes`)).json()) as { items: { path: string; kind: string }[] }
  ).items;
  assert.ok(
    parked.some((i) => i.path === '/parked.txt' && i.kind === 'added'),
    JSON.stringify(parked),
  );
});

test('scopes: reads need read, writes, deletes and mkdir need exec', async () => {
  const mk = async (scopes: string[]) =>
    ((await (await t.api('POST', '/v1/tokens', { name: `t-${scopes.join('-')}`, scopes })).json()) as { token: string })
      .token;
  const reader = await mk(['read']);
  const writer = await mk(['write']);
  const execer = await mk(['exec']);
  const as = (token: string, method: string, path: string, body?: string) =>
    fetch(`${t.url}${RUN}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/octet-stream' } : {}),
      },
      body,
    });
  assert.equal((await as(reader, 'GET', '/files/stat?path=/etc')).status, 200);
  assert.equal((await as(reader, 'GET', '/files/list?path=/etc')).status, 200);
  assert.equal((await as(reader, 'PUT', '/files?path=/scoped', 'x')).status, 403);
  assert.equal(
    (await as(writer, 'PUT', '/files?path=/scoped', 'x')).status,
    403,
    'write is for box lifecycle, not files',
  );
  assert.equal((await as(reader, 'DELETE', '/files?path=/etc/group')).status, 403);
  assert.equal((await as(reader, 'POST', '/files/mkdir?path=/scoped-dir')).status, 403);
  assert.equal((await stat(RUN, '/scoped')).status, 404);
  assert.equal((await as(execer, 'PUT', '/files?path=/scoped', 'x')).status, 200);
});

test('a directory archive holds only regular files and directories, named relative to it', async () => {
  await sh(
    'mkdir -p /tree/sub && echo a > /tree/a.txt && echo b > /tree/sub/b.txt && ln -s / /tree/root-link && ln -s ../../etc/passwd /tree/sub/up && mkfifo /tree/fifo',
  );
  const res = await t.api('GET', `${RUN}/files/archive?path=/tree`);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('content-type'), 'application/x-tar');
  const extract = tar.extract();
  Readable.fromWeb(res.body as never).pipe(extract);
  const entries: string[] = [];
  for await (const entry of extract) {
    entries.push(`${entry.header.type} ${entry.header.name}`);
    entry.resume();
  }
  assert.deepEqual(entries.sort(), ['directory sub', 'file a.txt', 'file sub/b.txt']);
  assert.equal((await t.api('GET', `${RUN}/files/archive?path=/tree/a.txt`)).status, 400, 'a file is not a tree');
  assert.equal((await t.api('GET', `${RUN}/files/archive?path=/nothing`)).status, 404);
});

test('long names (PAX headers in the engine tar) and empty files read back exactly', async () => {
  const long = `/long/${'ü'.repeat(60)}-${'n'.repeat(120)}.txt`;
  assert.equal((await put(STOPPED, long, 'long name\n')).status, 200);
  assert.equal((await read(STOPPED, long)).toString(), 'long name\n');
  assert.equal((await put(STOPPED, '/long/empty', '')).status, 200);
  assert.equal((await read(STOPPED, '/long/empty')).length, 0);
  assert.equal((await t.api('DELETE', `${STOPPED}/files?path=${q(long)}`)).status, 204);
});
