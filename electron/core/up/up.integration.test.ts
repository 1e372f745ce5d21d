import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { UpDone, UpLine } from '../../../shared/schemas/up';
import { previewRequest } from '../../../test-support/preview-http';
import { ndjsonLines } from '../../../test-support/ndjson';
import { tarOf } from '../../../test-support/tar';
import { deleteBoxes, startTestCore, type TestCore } from '../../../test-support/test-core';

const P = 'upint';
const boxes = `/v1/projects/${P}/boxes`;
let t: TestCore;
before(async () => {
  t = await startTestCore({ args: ['--upload-limit', '1M'] });
});
after(async () => {
  await deleteBoxes(t, boxes);
  await t.api('DELETE', '/v1/bases/up-upint-fixture-app');
  await t.close();
});

function up(body: Buffer | string, query = '', token = t.token): Promise<Response> {
  return fetch(`${t.url}/v1/projects/${P}/up${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-tar' },
    body,
  });
}

/** The answer's lines, read as they stream to its end. */
async function upLines(body: Buffer, query = ''): Promise<UpLine[]> {
  return ndjsonLines<UpLine>(await up(body, query));
}

async function exec(box: string, script: string): Promise<string> {
  const res = await t.api('POST', `${boxes}/${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200);
  return ((await res.json()) as { stdout: string }).stdout;
}

const devcontainer = `{
  // a dev container as VS Code reads it
  "name": "Fixture App",
  "build": { "dockerfile": "Dockerfile", "context": ".." },
  "containerEnv": { "GREETING": "hello" },
  "forwardPorts": [8080, 9090],
  "postCreateCommand": "echo post-create $GREETING && cat src/main.txt",
  "postStartCommand": "httpd -p 8080 -h /workspace/src && httpd -p 9090 -h /workspace/.devcontainer && echo post-start",
  "features": { "ghcr.io/devcontainers/features/node:1": {} },
}`;
const fixture = {
  '.devcontainer/devcontainer.json': devcontainer,
  '.devcontainer/Dockerfile': 'FROM boxdesk/default\nCOPY src/main.txt /opt/main.txt\n',
  'src/main.txt': 'main file\n',
  'README.md': 'read me\n',
};

const text = (lines: UpLine[], type: UpLine['type']) =>
  lines
    .filter((l) => l.type === type)
    .map((l) => ('message' in l ? l.message : 'data' in l ? l.data : ''))
    .join('');

test('up: a devcontainer.json folder becomes a box with its files, env and command output, its ports published, a note on features', async () => {
  const lines = await upLines(await tarOf(fixture));
  const done = lines.at(-1) as UpDone;
  assert.equal(done.type, 'done', JSON.stringify(lines.at(-1)));
  assert.equal(done.box, 'fixture-app', "the box's name comes last");
  assert.equal(done.created, true);
  assert.equal(done.exit_code, 0);
  assert.match(text(lines, 'note'), /"features" is ignored \(features are fetched from a registry\)/);
  assert.ok(
    lines.some((l) => l.type === 'build' && l.step === '2/2 COPY src/main.txt /opt/main.txt'),
    'the build log streams',
  );
  // The command's output comes as it ran, before the box is named.
  assert.equal(text(lines, 'output'), 'post-create hello\nmain file\npost-start\n');
  assert.equal(
    await exec('fixture-app', 'cd /workspace && find . -type f | sort && cat /opt/main.txt && echo $GREETING'),
    './.devcontainer/Dockerfile\n./.devcontainer/devcontainer.json\n./README.md\n./src/main.txt\nmain file\nhello\n',
  );
  // Both forwardPorts answer through the proxy: 8080 at the box's URL, 9090 at its own.
  const box = (await (await t.api('GET', `${boxes}/fixture-app`)).json()) as Box;
  const proxy = t.core.proxyPort;
  assert.deepEqual(done.urls, [
    { port: 8080, url: `http://fixture-app--upint.localhost:${proxy}` },
    { port: 9090, url: `http://9090.fixture-app--upint.localhost:${proxy}` },
  ]);
  assert.deepEqual(box.port_urls, [done.urls[1]]);
  const auth = { authorization: `Bearer ${t.token}` };
  const main = await previewRequest(proxy, `fixture-app--upint.localhost:${proxy}`, '/main.txt', { headers: auth });
  assert.equal(main.body.toString(), 'main file\n');
  const other = await previewRequest(proxy, `9090.fixture-app--upint.localhost:${proxy}`, '/Dockerfile', {
    headers: auth,
  });
  assert.match(other.body.toString(), /^FROM boxdesk\/default/);
  const unpublished = await previewRequest(proxy, `7070.fixture-app--upint.localhost:${proxy}`, '/', { headers: auth });
  assert.equal(unpublished.status, 404, 'a port it does not publish is not reached');
});

test('up again on the folder: the same box, the base from the cache, the changed files copied in and listed', async () => {
  const { 'README.md': _gone, ...kept } = fixture;
  const lines = await upLines(await tarOf({ ...kept, 'src/new.txt': 'new\n' }));
  const done = lines.at(-1) as UpDone;
  assert.equal(done.type, 'done', JSON.stringify(done));
  assert.equal(done.created, false);
  assert.deepEqual(done.changes, { added: ['src/new.txt'], changed: [], removed: ['README.md'] });
  const progress = text(lines, 'progress');
  assert.match(progress, /box fixture-app exists \(made by an earlier box up\)/);
  assert.match(progress, /base up-upint-fixture-app built; 1 of 2 steps from the cache, nothing changed/);
  assert.match(progress, /no longer in the folder \(left in the box\): README\.md/);
  assert.match(text(lines, 'note'), /postCreateCommand ran when box fixture-app was made; it does not run again/);
  assert.equal(text(lines, 'output'), '', 'the box was running: neither command runs again');
  assert.match(text(lines, 'note'), /postStartCommand runs when box fixture-app starts; it was running/);
  assert.equal(await exec('fixture-app', 'cat /workspace/src/new.txt /workspace/README.md'), 'new\nread me\n');
  // A changed Dockerfile step runs again; the box keeps its root, and says so.
  const edited = await upLines(await tarOf({ ...kept, 'src/main.txt': 'main file, edited\n' }));
  assert.match(text(edited, 'progress'), /0 of 2 steps from the cache, run again from step 2\/2 COPY/);
  assert.match(text(edited, 'progress'), /1 changed since the last box up\n {2}changed src\/main\.txt/);
  assert.match(text(edited, 'note'), /the base changed since box fixture-app was made; the box keeps the root it has/);
  assert.equal(await exec('fixture-app', 'cat /workspace/src/main.txt'), 'main file, edited\n');
});

test('an upload past the upload limit is a 413, and nothing is made', async () => {
  const res = await up(await tarOf({ 'big.bin': Buffer.alloc(2 * 1024 * 1024, 1) }), '?name=too-big');
  assert.equal(res.status, 413, await res.clone().text());
  assert.equal((await t.api('GET', `${boxes}/too-big`)).status, 404);
});

test('bad input is a 4xx that changes nothing: not a tar, bad JSON, a path outside the folder, no name, a build without admin, a box not made by up', async () => {
  const before = await (await t.api('GET', boxes)).text();
  const made = await t.api('POST', '/v1/tokens', { name: 'no-admin', scopes: ['write', 'exec'] });
  assert.equal(made.status, 201);
  const noAdmin = ((await made.json()) as { token: string }).token;
  const refusals: [Response, number, RegExp][] = [
    [await up('not a tar at all', '?name=bad-one'), 400, /not a readable tar/],
    [await up(await tarOf({ '.devcontainer.json': '{ nope' }), '?name=bad-two'), 400, /not valid JSON/],
    [
      await up(await tarOf({ '.devcontainer.json': '{"build": {"dockerfile": "../x"}}' }), '?name=bad-three'),
      400,
      /outside the folder/,
    ],
    [await up(await tarOf({ 'a.txt': 'x' })), 400, /name the box/],
    [await up(await tarOf({ 'a.txt': 'x' }), '?name=Not_A_Name'), 400, /name/],
    [await up(await tarOf({ Dockerfile: 'FROM boxdesk/default\n' }), '?name=bad-four', noAdmin), 403, /"admin"/],
  ];
  for (const [res, status, detail] of refusals) {
    assert.equal(res.status, status);
    assert.match(((await res.json()) as { detail: string }).detail, detail);
  }
  assert.equal(await (await t.api('GET', boxes)).text(), before, 'no box was made');
  assert.equal((await t.api('POST', boxes, { name: 'by-hand' })).status, 201);
  const taken = await up(await tarOf({ 'a.txt': 'x' }), '?name=by-hand');
  assert.equal(taken.status, 409);
  assert.match(((await taken.json()) as { detail: string }).detail, /was not made by box up; give another name/);
  assert.equal(await exec('by-hand', 'ls /workspace | wc -l'), '0\n', 'its workspace is untouched');
});
