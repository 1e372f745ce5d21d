import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { docker, waitFor } from '../../../test-support/docker';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
const P = '/v1/projects/confine/boxes';
const RUN = `${P}/jail`;
const STOPPED = `${P}/jail-stopped`;
const LIMIT = 1024 * 1024;
// A file on the host that no box may ever read or write.
const hostDir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxdesk-host-'));
const hostSecret = path.join(hostDir, 'secret.txt');
const secret = `host secret ${crypto.randomBytes(8).toString('hex')}\n`;

before(async () => {
  fs.writeFileSync(hostSecret, secret);
  t = await startTestCore({ args: ['--upload-limit', String(LIMIT)] });
  for (const name of ['jail', 'jail-stopped']) assert.equal((await t.api('POST', P, { name })).status, 201);
  await sh(
    `ln -s / /tmp/root && ln -s /proc/1/root /tmp/p1 && ln -s ${hostSecret} /tmp/secret && ln -s ../../../../../.. /tmp/up`,
    `${P}/jail-stopped`,
  );
  await sh(
    `ln -s / /tmp/root && ln -s /proc/1/root /tmp/p1 && ln -s ${hostSecret} /tmp/secret && ln -s ../../../../../.. /tmp/up`,
  );
  assert.equal((await t.api('POST', `${STOPPED}/stop`)).status, 200);
});
after(async () => {
  for (const b of [RUN, STOPPED]) await t.api('DELETE', b);
  await t.close();
  fs.rmSync(hostDir, { recursive: true, force: true });
});

const q = (p: string) => encodeURIComponent(p);

async function sh(script: string, box = RUN): Promise<string> {
  const res = await t.api('POST', `${box}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200);
  const r = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  assert.equal(r.exit_code, 0, r.stderr);
  return r.stdout;
}

function put(
  box: string,
  p: string,
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
  rawQuery = false,
): Promise<Response> {
  return fetch(`${t.url}${box}/files?path=${rawQuery ? p : q(p)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

function chunked(total: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(7));
    },
  });
}

test('invalid paths are 400 problems naming query.path, and nothing is touched', async () => {
  const raw = [
    'etc/passwd',
    '/tmp/../etc/passwd',
    '/tmp/%2e%2e/etc',
    '/tmp/./x',
    '/tmp/a\\b',
    '/tmp/a\u0000b',
    '',
    '/tmp/\n',
  ];
  for (const p of raw) {
    for (const [method, route] of [
      ['GET', '/files'],
      ['GET', '/files/stat'],
      ['GET', '/files/list'],
      ['DELETE', '/files'],
      ['POST', '/files/mkdir'],
    ] as const) {
      // %2e%2e arrives decoded once ("..") and is refused; the literal query is sent as given.
      const url = `${RUN}${route}?path=${p.includes('%') ? p : q(p)}`;
      const res = await t.api(method, url);
      assert.equal(res.status, 400, `${method} ${route} ${JSON.stringify(p)}`);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      const problem = (await res.json()) as { code: string; errors?: { path: string }[] };
      assert.equal(problem.code, 'invalid_body');
      assert.equal(problem.errors?.[0]?.path, 'query.path', JSON.stringify(problem));
    }
    assert.equal((await put(RUN, p.includes('%') ? p : q(p), 'x', {}, true)).status, 400, `PUT ${JSON.stringify(p)}`);
  }
  assert.equal(await sh('ls /tmp | sort'), 'p1\nroot\nsecret\nup\n', 'nothing was written');
});

for (const [which, box] of [
  ['running', RUN],
  ['stopped', STOPPED],
] as const) {
  test(`symlinks to /, /proc/1/root, ".." chains and a host path stay inside the ${which} box`, async () => {
    const boxPasswd = await (await t.api('GET', `${box}/files?path=/etc/passwd`)).text();
    assert.notEqual(
      boxPasswd,
      fs.readFileSync('/etc/passwd', 'utf8'),
      "the box's passwd differs from the host's (the test means something)",
    );
    assert.equal(
      await (await t.api('GET', `${box}/files?path=/tmp/root/etc/passwd`)).text(),
      boxPasswd,
      'a link to / is the box root',
    );
    assert.equal(
      await (await t.api('GET', `${box}/files?path=/tmp/up/etc/passwd`)).text(),
      boxPasswd,
      '.. above the root stays at the root',
    );
    for (const p of [
      '/tmp/secret',
      `/tmp/root${hostSecret}`,
      `/tmp/p1${hostSecret}`,
      `/tmp/up${hostSecret}`,
      `/tmp/p1/etc/passwd`,
    ]) {
      const res = await t.api('GET', `${box}/files?path=${q(p)}`);
      const body = await res.text();
      assert.ok(!body.includes(secret.trim()), `${p} exposed the host file`);
      assert.ok([400, 404].includes(res.status), `${p}: ${res.status} ${body}`);
      const listed = await t.api('GET', `${box}/files/list?path=${q(path.dirname(p))}`);
      assert.ok(
        !(await listed.text()).includes('secret.txt') || path.dirname(p) === '/tmp',
        `${p}: listing shows the host dir`,
      );
    }
    // Writes through the same links land in the box, never on the host.
    for (const p of ['/tmp/secret', `/tmp/root${hostSecret}`, `/tmp/up${hostSecret}`]) {
      const res = await put(box, p, 'overwritten\n');
      assert.ok(res.status === 200 || res.status === 400, `${p}: ${res.status} ${await res.clone().text()}`);
    }
    assert.equal(fs.readFileSync(hostSecret, 'utf8'), secret, 'the host file is unchanged');
    assert.equal(
      await (await t.api('GET', `${box}/files?path=${q(hostSecret)}`)).text(),
      'overwritten\n',
      'the write went to the same path inside the box',
    );
    assert.equal((await t.api('DELETE', `${box}/files?path=${q(`/tmp/root${hostDir}`)}&recursive=true`)).status, 204);
    assert.ok(fs.existsSync(hostSecret), 'a recursive delete through a link to / removed the box copy only');
  });
}

test('over the limit with Content-Length: 413 before the box is touched', async () => {
  const res = await put(RUN, '/big/dir/file.bin', new Uint8Array(LIMIT + 1));
  assert.equal(res.status, 413);
  const problem = (await res.json()) as { code: string; detail: string };
  assert.equal(problem.code, 'payload_too_large');
  assert.match(problem.detail, /1 MiB/);
  assert.equal((await t.api('GET', `${RUN}/files/stat?path=/big`)).status, 404, 'no parent was created');
  assert.equal(
    (await put(RUN, '/big/exact.bin', new Uint8Array(LIMIT).fill(1))).status,
    200,
    'exactly the limit is fine',
  );
});

test('chunked uploads are spooled: under the limit they land, over it 413 with nothing left in the box or the spool', async () => {
  const ok = await put(RUN, '/chunked/ok.bin', chunked(300 * 1024));
  assert.equal(ok.status, 200, await ok.clone().text());
  assert.equal(((await ok.json()) as { size: number }).size, 300 * 1024);
  const over = await put(RUN, '/chunked/over.bin', chunked(LIMIT + 64 * 1024)).catch((err: Error) => err);
  if (over instanceof Response) {
    assert.equal(over.status, 413);
  }
  assert.equal((await t.api('GET', `${RUN}/files/stat?path=/chunked/over.bin`)).status, 404);
  await waitFor(async () => fs.readdirSync(path.join(t.dataDir, 'uploads')).length === 0, 5000, 'an empty spool');
});

test('an upload cut off midway leaves no partial file', async () => {
  const u = new URL(`${t.url}${RUN}/files?path=${q('/cut/partial.bin')}`);
  await new Promise<void>((resolve) => {
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      method: 'PUT',
      headers: {
        authorization: `Bearer ${t.token}`,
        'content-type': 'application/octet-stream',
        'content-length': String(900 * 1024),
      },
    });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(Buffer.alloc(300 * 1024, 3), () => setTimeout(() => req.destroy(), 300));
  });
  await waitFor(
    async () => (await t.api('GET', `${RUN}/files/stat?path=/cut`)).status === 404,
    10_000,
    'the partial upload to be removed',
  );
  assert.equal(await sh('test -e /cut/partial.bin || echo absent'), 'absent\n');
});

test('a box whose container vanished answers 409, not a missing path', async () => {
  assert.equal((await t.api('POST', P, { name: 'gone' })).status, 201);
  const box = (await (await t.api('GET', `${P}/gone`)).json()) as { id: string };
  const [c] = await docker.listContainers({ all: true, filters: { label: [`boxdesk.id=${box.id}`] } });
  await docker.getContainer(c!.Id).remove({ force: true });
  const res = await t.api('GET', `${P}/gone/files/stat?path=/etc`);
  assert.equal(res.status, 409, await res.clone().text());
  assert.equal((await t.api('DELETE', `${P}/gone`)).status, 204);
});
