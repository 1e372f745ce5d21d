import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PROBLEM_CONTENT_TYPE } from '../../../shared/errors';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { V1_PROBLEM_STATUSES } from './problem-responses';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
}

test('every operation in /v1/openapi.json declares its error answers as application/problem+json', async () => {
  const doc = (await (await t.api('GET', '/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  let operations = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      operations++;
      const where = `${method.toUpperCase()} ${path}`;
      const errors = Object.entries(op.responses ?? {}).filter(([status]) => Number(status) >= 400);
      assert.ok(errors.length > 0, `${where} declares no error responses`);
      for (const [status, response] of errors) {
        // The one exception the contract makes: /healthz answers 503 with its Health document.
        if (path === '/healthz' && status === '503') continue;
        assert.deepEqual(Object.keys(response.content ?? {}), [PROBLEM_CONTENT_TYPE], `${where} ${status}`);
        const props = response.content![PROBLEM_CONTENT_TYPE]!.schema?.properties ?? {};
        for (const field of ['type', 'title', 'status', 'detail', 'code'])
          assert.ok(field in props, `${where} ${status} problem schema lacks ${field}`);
      }
      if (path.startsWith('/v1/')) {
        for (const status of V1_PROBLEM_STATUSES) assert.ok(op.responses?.[String(status)], `${where} lacks ${status}`);
      }
    }
  }
  assert.ok(operations >= 15, `walked ${operations} operations`);
  const create = doc.paths['/v1/projects/{project}/boxes']!.post!;
  for (const status of ['404', '409', '413', '415'])
    assert.ok(create.responses?.[status], `box create declares ${status}`);
});

// Found by the API fuzzer (electron/core/reliability/fuzz.integration.test.ts).
test('a body sent to a route that takes none: 415 saying so, and the route documents 415 and 413', async () => {
  const res = await t.api('POST', '/v1/projects/p/boxes/nobody/stop', 'junk', { 'content-type': 'text/plain' });
  assert.equal(res.status, 415);
  const problem = (await res.json()) as { code: string; detail: string };
  assert.equal(problem.code, 'unsupported_media_type');
  assert.match(problem.detail, /takes no request body .*text\/plain.*send the request without a body/);
  const doc = (await (await t.api('GET', '/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  for (const [path, method] of [
    ['/v1/projects/{project}/boxes/{name}/stop', 'post'],
    ['/v1/projects/{project}/boxes/{name}', 'delete'],
    ['/v1/tokens/{id}', 'delete'],
  ] as const) {
    for (const status of ['413', '415'])
      assert.ok(doc.paths[path]![method]!.responses?.[status], `${method} ${path} declares ${status}`);
  }
});

test('streaming answers document their 200 and its content type (logs, events)', async () => {
  const doc = (await (await t.api('GET', '/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, Operation>>;
  };
  assert.deepEqual(
    Object.keys(doc.paths['/v1/projects/{project}/boxes/{name}/logs']!.get!.responses!['200']!.content ?? {}),
    ['text/plain'],
  );
  assert.deepEqual(Object.keys(doc.paths['/v1/events']!.get!.responses!['200']!.content ?? {}), ['text/event-stream']);
  const stats = doc.paths['/v1/projects/{project}/boxes/{name}/stats']!.get!.responses!;
  assert.deepEqual(Object.keys(stats['200']!.content ?? {}), ['application/json', 'application/x-ndjson']);
  for (const status of ['404', '409'])
    assert.ok(stats[status], `stats declares ${status} (an unknown box, a box not running)`);
});
