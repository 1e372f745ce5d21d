import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rawSocketRequest, type RawResponse } from '../../../test-support/raw-http';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
let host: string;
before(async () => {
  t = await startTestCore();
  host = `127.0.0.1:${t.core.port}`;
});
after(() => t.close());

function expectProblem(res: RawResponse, status: number, code: string): { detail: string } {
  assert.equal(res.status, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = JSON.parse(res.body) as { status: number; code: string; detail: string };
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  return body;
}

const get = (target: string, headers: string) =>
  rawSocketRequest(t.core.port, `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);

describe('errors raised before routing are problem+json', () => {
  test('a malformed percent-escape: 400', async () => {
    const body = expectProblem(await get('/v1/projects/%/boxes', `Host: ${host}\r\n`), 400, 'invalid_body');
    assert.match(body.detail, /percent-escape/);
  });

  test('a path segment over 100 characters: 400 (names are at most 63)', async () => {
    expectProblem(await get(`/v1/projects/p/boxes/${'a'.repeat(101)}`, `Host: ${host}\r\n`), 400, 'invalid_body');
  });

  test('a URL over 16 KiB: 431', async () => {
    expectProblem(await get(`/healthz?${'a'.repeat(17_000)}`, `Host: ${host}\r\n`), 431, 'headers_too_large');
  });

  test('a request Node cannot parse: 400', async () => {
    expectProblem(await get('/healthz', `Host: ${host}\r\nBad Header\r\n`), 400, 'invalid_body');
  });

  test('a bad URL with a foreign Host: 403, the Host check comes first', async () => {
    expectProblem(await get('/v1/projects/%/boxes', 'Host: evil.example\r\n'), 403, 'forbidden');
    expectProblem(await get(`/v1/projects/p/boxes/${'a'.repeat(101)}`, 'Host: evil.example\r\n'), 403, 'forbidden');
  });
});

describe('the Host a request names', () => {
  test('two Host headers: 400', async () => {
    const body = expectProblem(await get('/healthz', `Host: ${host}\r\nHost: evil.example\r\n`), 400, 'invalid_body');
    assert.match(body.detail, /more than one Host/);
    expectProblem(await get('/healthz', `Host: evil.example\r\nHost: ${host}\r\n`), 400, 'invalid_body');
  });

  test('an absolute request URI naming a foreign host: 403; naming the core: served', async () => {
    const body = expectProblem(await get('http://evil.example/healthz', `Host: ${host}\r\n`), 403, 'forbidden');
    assert.match(body.detail, /evil\.example/);
    const own = await get(`http://${host}/healthz`, `Host: ${host}\r\n`);
    assert.equal(own.status, 200);
  });
});

test('an absolute request URI naming the core still needs a token on /v1', async () => {
  for (const path of ['/v1/bases', '/v1/projects/p/boxes', '/v1/tokens']) {
    expectProblem(await get(`http://${host}${path}`, `Host: ${host}\r\n`), 401, 'unauthorized');
    const authorised = await get(`http://${host}${path}`, `Host: ${host}\r\nAuthorization: Bearer ${t.token}\r\n`);
    assert.equal(authorised.status, 200, path);
  }
});
