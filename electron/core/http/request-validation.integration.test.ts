import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

async function expect400(res: Response, path: string, message: RegExp): Promise<void> {
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
  assert.equal(body.code, 'invalid_body');
  const error = body.errors.find((e) => e.path === path);
  assert.ok(error, `an error at ${path}: ${JSON.stringify(body.errors)}`);
  assert.match(error.message, message);
}

describe('environment maps are validated at the schema', () => {
  test('box create: an empty name, a name with "=", a value with NUL are 400 and nothing is created', async () => {
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes', { name: 'e1', environment: { '': 'x' } }),
      'body.environment.',
      /not an allowed name/,
    );
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes', { name: 'e1', environment: { 'A=B': 'x' } }),
      'body.environment.A=B',
      /not an allowed name/,
    );
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes', { name: 'e1', environment: { '1A': 'x' } }),
      'body.environment.1A',
      /not an allowed name/,
    );
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes', { name: 'e1', environment: { A: 'a\u0000b' } }),
      'body.environment.A',
      /NUL/,
    );
    const list = (await (await t.api('GET', '/v1/projects/envp/boxes')).json()) as { items: unknown[] };
    assert.equal(list.items.length, 0);
  });

  test('box update and exec env are validated the same way', async () => {
    await expect400(
      await t.api('PUT', '/v1/projects/envp/boxes/none', { environment: { 'A=B': 'x' } }),
      'body.environment.A=B',
      /not an allowed name/,
    );
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes/none/exec', { command: ['true'], env: { '': 'x' } }),
      'body.env.',
      /not an allowed name/,
    );
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes/none/exec', { command: ['true'], env: { A: '\u0000' } }),
      'body.env.A',
      /NUL/,
    );
  });

  test('tag keys outside their pattern are refused too', async () => {
    await expect400(
      await t.api('POST', '/v1/projects/envp/boxes', { name: 'e1', tags: { 'bad key': 'x' } }),
      'body.tags.bad key',
      /not an allowed name/,
    );
  });
});
