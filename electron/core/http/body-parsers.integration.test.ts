import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { authHarness, type AuthHarness } from '../../../test-support/http-harness';
import { RateLimiter } from './rate-limiter';
import { resolveConfig } from '../config';
import { createHttpApp } from './app';
import { installAuthGuard } from './auth-guard';
import { streamBody, uploadStream } from './body-parsers';
import { loopbackPolicy } from './hardening';

const LIMIT = 64 * 1024;
let harness: AuthHarness;
let port = 0;
let token: string;
let streamStarted = false;

before(async () => {
  harness = authHarness();
  const { auth, dir } = harness;
  token = auth.create({ name: 't', scopes: ['admin'] }, null).token;
  const config = resolveConfig(['--data-dir', dir, '--upload-limit', String(LIMIT)], {});
  const app = await createHttpApp({
    config,
    policy: loopbackPolicy(() => port, []),
    logger: false,
  });
  installAuthGuard(app, auth, new RateLimiter(0, 0));
  // Throwaway routes: one streamed upload that counts its bytes, one JSON route. Hidden: they are
  // not operations of the document (installOperationIds refuses a documented route without an id).
  const hidden = { hide: true } as object;
  app.put(
    '/v1/test/upload',
    { config: { scope: 'write', body: 'stream' }, schema: { ...hidden, body: streamBody('bytes to count') } },
    async (request) => {
      streamStarted = true;
      let bytes = 0;
      for await (const chunk of uploadStream(request)) bytes += (chunk as Buffer).length;
      return { bytes };
    },
  );
  app.post(
    '/v1/test/json',
    { config: { scope: 'write' }, schema: { ...hidden, body: Type.Object({ a: Type.Integer() }) } },
    async (request) => request.body,
  );
  port = await harness.listen(app);
});
after(() => harness.close());

const headers = (type: string) => ({ authorization: `Bearer ${token}`, 'content-type': type });
const url = (p: string) => `http://127.0.0.1:${port}${p}`;

async function problem(res: Response, status: number, code: string): Promise<string> {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await res.json()) as { code: string; detail: string };
  assert.equal(body.code, code);
  return body.detail;
}

test('an octet-stream route gets the request as a stream, before the body has arrived', async () => {
  streamStarted = false;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      url('/v1/test/upload'),
      { method: 'PUT', headers: headers('application/octet-stream') },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write(Buffer.alloc(1000));
    // The rest is sent only once the route runs: a buffering parser would wait forever.
    const poll = setInterval(() => {
      if (!streamStarted) return;
      clearInterval(poll);
      req.end(Buffer.alloc(2000));
    }, 10);
  });
  const { status, body } = await answer;
  assert.equal(status, 200);
  assert.deepEqual(JSON.parse(body), { bytes: 3000 });
});

test('over the upload limit: 413, whether Content-Length says so or the bytes do', async () => {
  const declared = await fetch(url('/v1/test/upload'), {
    method: 'PUT',
    headers: headers('application/octet-stream'),
    body: Buffer.alloc(LIMIT + 1),
  });
  assert.match(await problem(declared, 413, 'payload_too_large'), /--upload-limit/);
  const chunked = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 3; i++) controller.enqueue(new Uint8Array(LIMIT / 2));
      controller.close();
    },
  });
  const streamed = await fetch(url('/v1/test/upload'), {
    method: 'PUT',
    headers: headers('application/octet-stream'),
    body: chunked,
    duplex: 'half',
  } as RequestInit);
  await problem(streamed, 413, 'payload_too_large');
  const exact = await fetch(url('/v1/test/upload'), {
    method: 'PUT',
    headers: headers('application/octet-stream'),
    body: Buffer.alloc(LIMIT),
  });
  assert.deepEqual(await exact.json(), { bytes: LIMIT });
});

test('an answer given before its streamed body was read to the end: the rest is read and dropped, and the next request on the connection is answered', async () => {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  const until = async (pattern: RegExp) => {
    while (!pattern.test(received) && !socket.closed)
      await new Promise((resolve) => socket.once('data', resolve).once('close', resolve));
  };
  const auth = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n`;
  socket.write(
    `PUT /v1/test/upload HTTP/1.1\r\n${auth}Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n`,
  );
  socket.write(`${(LIMIT + 1).toString(16)}\r\n`);
  socket.write(Buffer.alloc(LIMIT + 1));
  socket.write('\r\n');
  // More of the body comes only after the 413: the core stopped counting it, and must still read it.
  await until(/\r\n\r\n[\s\S]*payload_too_large/);
  assert.match(received, /^HTTP\/1\.1 413 /);
  socket.write(`10000\r\n${'x'.repeat(0x10000)}\r\n0\r\n\r\nPOST /v1/test/json HTTP/1.1\r\n${auth}`);
  socket.write('Content-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}');
  // Left unread, the POST would wait for the keep-alive timeout, then the connection's reset.
  await until(/\{"a":1\}$/);
  assert.match(received, /HTTP\/1\.1 200 [\s\S]*\{"a":1\}$/);
  socket.destroy();
});

test('each route takes only its own kind of body: 415 otherwise', async () => {
  // [route, method, the wrong content type sent, what the problem says the route takes]
  const wrongKinds: [string, string, string, RegExp][] = [
    ['/v1/test/upload', 'PUT', 'application/json', /octet-stream/],
    ['/v1/test/upload', 'PUT', 'text/plain', /octet-stream/],
    ['/v1/test/json', 'POST', 'application/octet-stream', /application\/json/],
  ];
  for (const [route, method, type, takes] of wrongKinds) {
    const res = await fetch(url(route), {
      method,
      headers: headers(type),
      body: type === 'application/json' ? '{}' : 'x',
    });
    assert.match(await problem(res, 415, 'unsupported_media_type'), takes, `${method} ${route} with ${type}`);
  }
  const ok = await fetch(url('/v1/test/json'), {
    method: 'POST',
    headers: headers('application/json'),
    body: '{"a":1}',
  });
  assert.deepEqual(await ok.json(), { a: 1 });
});
