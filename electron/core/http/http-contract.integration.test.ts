import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { rawRequest } from '../../../test-support/raw-http';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

async function expectProblem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(typeof body.detail, 'string');
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace in the body');
  return body;
}

describe('errors are problem+json with stable codes', () => {
  test('unknown route: 404 not_found', async () => {
    await expectProblem(await t.api('GET', '/v1/nope'), 404, 'not_found');
    await expectProblem(await fetch(`${t.url}/nothing-here`), 404, 'not_found');
  });

  test('malformed JSON: 400 invalid_body', async () => {
    const body = await expectProblem(
      await t.api('POST', '/v1/projects/p/boxes', '{"name": "x",', { 'content-type': 'application/json' }),
      400,
      'invalid_body',
    );
    assert.match(String(body.detail), /not valid JSON/);
  });

  test('wrong content type: 415', async () => {
    const res = await fetch(`${t.url}/v1/projects/p/boxes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    await expectProblem(res, 415, 'unsupported_media_type');
  });

  test('body over 1 MiB: 413', async () => {
    const big = JSON.stringify({ name: 'x', tags: { a: 'y'.repeat(1024 * 1024) } });
    await expectProblem(await t.api('POST', '/v1/projects/p/boxes', big), 413, 'payload_too_large');
  });

  test('unknown field and wrong type name the field', async () => {
    const unknown = await expectProblem(
      await t.api('POST', '/v1/projects/p/boxes', { name: 'x', colour: 'red' }),
      400,
      'invalid_body',
    );
    assert.deepEqual(unknown.errors, [{ path: 'body.colour', message: 'is not a known field' }]);
    const wrong = await expectProblem(
      await t.api('POST', '/v1/projects/p/boxes', { name: 'x', config: { cpus: '2' } }),
      400,
      'invalid_body',
    );
    assert.match(String(wrong.detail), /body\.config\.cpus/);
  });

  test('invalid names in the path: 400', async () => {
    await expectProblem(await t.api('GET', '/v1/projects/Bad_Project/boxes'), 400, 'invalid_body');
  });
});

describe('localhost hardening', () => {
  test('a foreign Host header is refused (DNS rebinding)', async () => {
    const res = await rawRequest(`${t.url}/healthz`, { headers: { host: `evil.example:${t.core.port}` } });
    assert.equal(res.status, 403);
    assert.equal(JSON.parse(res.body).code, 'forbidden');
    const wrongPort = await rawRequest(`${t.url}/version`, { headers: { host: `127.0.0.1:${t.core.port + 1}` } });
    assert.equal(wrongPort.status, 403);
  });

  test('the loopback names with the port are accepted', async () => {
    for (const host of [`localhost:${t.core.port}`, `127.0.0.1:${t.core.port}`, `[::1]:${t.core.port}`]) {
      const res = await rawRequest(`${t.url}/version`, { headers: { host } });
      assert.equal(res.status, 200, host);
    }
  });

  test('a foreign Origin cannot change state', async () => {
    const res = await rawRequest(`${t.url}/v1/tokens`, {
      method: 'POST',
      headers: {
        host: `127.0.0.1:${t.core.port}`,
        origin: 'http://evil.example',
        authorization: `Bearer ${t.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'x', scopes: ['read'] }),
    });
    assert.equal(res.status, 403);
    assert.match(JSON.parse(res.body).detail, /Origin/);
    const list = await (await t.api('GET', '/v1/tokens')).json();
    assert.equal((list as { items: unknown[] }).items.length, 1, 'no token was created');
  });

  test('CORS only for allowed origins, never a wildcard', async () => {
    const foreign = await rawRequest(`${t.url}/version`, {
      headers: { host: `127.0.0.1:${t.core.port}`, origin: 'http://evil.example' },
    });
    assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    const app = await rawRequest(`${t.url}/version`, {
      headers: { host: `127.0.0.1:${t.core.port}`, origin: 'app://boxdesk' },
    });
    assert.equal(app.headers['access-control-allow-origin'], 'app://boxdesk');
    const preflight = await rawRequest(`${t.url}/v1/bases`, {
      method: 'OPTIONS',
      headers: { host: `127.0.0.1:${t.core.port}`, origin: 'app://boxdesk', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
    assert.notEqual(preflight.headers['access-control-allow-origin'], '*');
  });
});

describe('version, health, OpenAPI', () => {
  test('GET /version and /healthz need no token', async () => {
    const version = (await (await fetch(`${t.url}/version`)).json()) as {
      api: string;
      engine: { name: string; version: string };
    };
    assert.equal(version.api, 'v1');
    assert.equal(version.engine.name, 'docker');
    assert.ok(version.engine.version);
    const health = await fetch(`${t.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(((await health.json()) as { status: string }).status, 'ok');
  });

  test('the OpenAPI 3.1 document describes the routes', async () => {
    const doc = (await (await t.api('GET', '/v1/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/v1/projects/{project}/boxes']?.post);
    assert.ok(doc.paths['/v1/tokens']?.post);
    assert.ok(doc.paths['/v1/projects/{project}/boxes/{name}/exec']?.post);
    const create = doc.paths['/v1/projects/{project}/boxes']!.post as {
      requestBody: {
        content: Record<string, { schema: { properties: Record<string, unknown>; additionalProperties: boolean } }>;
      };
    };
    assert.ok(create.requestBody.content['application/json']!.schema.properties.fork);
    assert.equal(create.requestBody.content['application/json']!.schema.additionalProperties, false);
  });
});

describe('bases', () => {
  test('default is registered for --default-base', async () => {
    const { items } = (await (await t.api('GET', '/v1/bases')).json()) as {
      items: { name: string; image: string; image_id: string | null }[];
    };
    const def = items.find((b) => b.name === 'default');
    assert.equal(def?.image, 'boxdesk-test/busybox:1');
    assert.ok(def?.image_id?.startsWith('sha256:'));
  });

  test('POST /v1/bases registers an image the engine has; unknown images and taken names are refused', async () => {
    const created = await t.api('POST', '/v1/bases', { name: 'tiny', image: 'boxdesk-test/busybox:1' });
    assert.equal(created.status, 201);
    assert.equal(((await created.json()) as { name: string }).name, 'tiny');
    await expectProblem(
      await t.api('POST', '/v1/bases', { name: 'tiny', image: 'boxdesk-test/busybox:1' }),
      409,
      'already_exists',
    );
    await expectProblem(
      await t.api('POST', '/v1/bases', { name: 'ghost', image: 'no-such-image:404' }),
      404,
      'not_found',
    );
    const { items } = (await (await t.api('GET', '/v1/bases')).json()) as { items: { name: string }[] };
    assert.ok(!items.some((b) => b.name === 'ghost'));
  });
});
