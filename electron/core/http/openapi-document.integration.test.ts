import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lintOpenApi } from '../../../test-support/openapi-lint';
import { committedOpenApi, withServedOpenApi, type OpenApiDocument } from '../../../test-support/openapi-document';
import { startTestCore } from '../../../test-support/test-core';

// The document a core on the real engine serves: the same as docs/openapi.json, and clean
// under Redocly's recommended rules. (Unit tests lint the committed copy and check the
// operationIds: openapi.test.ts.)

let served: OpenApiDocument;
withServedOpenApi(startTestCore, (_t, doc) => (served = doc));

test('docs/openapi.json is what the core serves', () => {
  assert.deepEqual(
    committedOpenApi(),
    served,
    'docs/openapi.json differs from /v1/openapi.json: run `npm run openapi` and commit docs/openapi.json ' +
      '(a changed operationId also needs its line in the changelog of docs/api.md)',
  );
});

test("Redocly's recommended rules find no error and no warning in the served document", async () => {
  const { findings, webSocketOperations } = await lintOpenApi(served);
  assert.deepEqual(findings, []);
  // The one rule a WebSocket route cannot meet (its success is 101, not 2xx): only those two.
  assert.deepEqual(webSocketOperations.sort(), [
    '#/paths/~1v1~1projects~1{project}~1boxes~1{name}~1console/get',
    '#/paths/~1v1~1projects~1{project}~1boxes~1{name}~1exec/get',
  ]);
});
