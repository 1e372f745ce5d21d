import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startMemoryCore, type MemoryCore } from '../../../test-support/memory-core';
import { compileAllSchemas } from './lazy-schemas';

// Route schemas compile on first use (lazy-schemas.ts): deferring changes nothing a client sees,
// and compileAllSchemas (last: it compiles the rest) finds a schema that cannot compile.
let t: MemoryCore;
before(async () => {
  t = await startMemoryCore();
});
after(() => t.close());

test('a validator compiled on its first request still names the bad field, every time', async () => {
  for (let i = 0; i < 2; i++) {
    const res = await t.api('POST', '/v1/projects/default/boxes', { name: 'Bad_Name', cpus: 'two' });
    assert.equal(res.status, 400);
    const problem = (await res.json()) as { errors: { path: string }[] };
    assert.deepEqual(problem.errors.map((e) => e.path).sort(), ['body.cpus', 'body.name']);
  }
});

test('a serializer compiled on its first answer leaves out what its schema does not name', async () => {
  const res = await t.api('GET', '/v1/system');
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), [
    'agent',
    'data_dir',
    'default_base',
    'engine',
    'pools',
    'proxy_edge',
    'proxy_port',
    'storage',
    'version',
  ]);
});

test("every route's validators and serializers compile (none waits for a request to fail)", () => {
  assert.doesNotThrow(() => compileAllSchemas(t.core.app));
});
