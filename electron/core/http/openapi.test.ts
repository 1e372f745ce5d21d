import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Fastify from 'fastify';
import { startMemoryCore, type MemoryCore } from '../../../test-support/memory-core';
import { lintOpenApi } from '../../../test-support/openapi-lint';
import {
  committedOpenApi,
  documentedOperations,
  withServedOpenApi,
  type OpenApiDocument,
} from '../../../test-support/openapi-document';
import { DEFAULT_API_PORT } from '../config';
import { installOperationIds, OPERATION_IDS } from './operation-ids';

// The OpenAPI document as tools take it, from a core on the in-memory engine (the routes are the
// same on every engine; openapi-document.integration.test.ts checks that on the real one).

const repoRoot = path.resolve(import.meta.dirname, '../../..');
/** The verbs an operationId starts with: verb + resource, the words the client's methods use. */
const VERBS =
  /^(get|list|create|update|delete|stop|resume|pause|restore|exec|open|read|write|stat|make|publish|unpublish|attach|detach|download|deploy|rollback|import|stream|kill|post|build|cancel)[A-Z][A-Za-z]*$/;

let t: MemoryCore;
let doc: OpenApiDocument;
withServedOpenApi(startMemoryCore, (core, served) => ([t, doc] = [core, served]));

/** The "Operation IDs" table of docs/api.md: `METHOD /path` → operationId. */
function documentedOperationIds(): Map<string, string> {
  const text = fs.readFileSync(path.join(repoRoot, 'docs', 'api.md'), 'utf8');
  const section = text.split('### Operation IDs')[1]?.split('\n### ')[0] ?? '';
  const rows = [...section.matchAll(/^\| `(\w+)` +\| `([A-Z]+ \S+)` +\|$/gm)];
  return new Map(rows.map(([, id, route]) => [route!, id!]));
}

test('every operation has an operationId: camelCase verb + resource, unique, as docs/api.md lists them', () => {
  const served = new Map(
    documentedOperations(doc).map(({ method, path: p, op }) => [`${method} ${p}`, op.operationId]),
  );
  for (const [route, id] of served) assert.match(id ?? '', VERBS, `${route}: operationId ${id}`);
  const ids = [...served.values()];
  assert.equal(
    new Set(ids).size,
    ids.length,
    `duplicate operationIds: ${ids.filter((id, i) => ids.indexOf(id) !== i)}`,
  );
  assert.equal(served.size, Object.keys(OPERATION_IDS).length, 'every entry of OPERATION_IDS names a documented route');
  assert.deepEqual(
    Object.fromEntries([...documentedOperationIds()].sort()),
    Object.fromEntries([...served].sort()),
    'the served operationIds differ from the table in docs/api.md ("Operation IDs"): a change there ' +
      'needs the table edited and a line in its changelog',
  );
});

test('the document needs a read token, as every /v1 route does, and says so in itself', async () => {
  const anonymous = await fetch(`${t.url}/v1/openapi.json`);
  assert.equal(anonymous.status, 401);
  assert.match(((await anonymous.json()) as { detail: string }).detail, /Authorization: Bearer/);
  const read = (await (await t.api('POST', '/v1/tokens', { name: 'reader', scopes: ['read'] })).json()) as {
    token: string;
  };
  const res = await fetch(`${t.url}/v1/openapi.json`, { headers: { authorization: `Bearer ${read.token}` } });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), doc, 'the same document whoever reads it');
  const op = doc.paths['/v1/openapi.json']?.get as { summary?: string; responses?: Record<string, unknown> };
  assert.match(op.summary ?? '', /needs a read token/);
  assert.ok(op.responses?.['401'], 'its 401 is documented');
});

test('a documented route with no operationId stops the app at start-up, naming it', async () => {
  const app = Fastify({ logger: false });
  installOperationIds(app);
  assert.throws(
    () => app.get('/v1/unnamed', { schema: { summary: 'new' } }, async () => ({})),
    /GET \/v1\/unnamed has no operationId: add one to OPERATION_IDS/,
  );
  // Routes kept out of the document need none.
  app.get('/v1/hidden', { schema: { hide: true } }, async () => ({}));
  await app.close();
});

test('every operation documents its success: 204 for deletes, 101 linking the protocol for WebSockets', () => {
  for (const { method, path: p, op } of documentedOperations(doc)) {
    const where = `${method} ${p}`;
    const successes = Object.keys(op.responses ?? {}).filter((s) => Number(s) < 400);
    assert.ok(successes.length > 0, `${where} documents no success`);
    // Unpublishing answers the box, as publishing does; every other DELETE removes something.
    if (method === 'DELETE' && !p.endsWith('/publish')) assert.deepEqual(successes, ['204'], where);
    if ((p.endsWith('/exec') && method === 'GET') || p.endsWith('/console')) {
      assert.deepEqual(successes, ['101'], where);
      assert.match((op.responses!['101'] as { description: string }).description, /docs\/protocol\.md/, where);
    }
  }
});

test('servers names the default local address; info has the licence (MIT, as LICENSE and package.json) and a contact', () => {
  assert.deepEqual(
    doc.servers?.map((s) => [s.url, s.variables?.port?.default]),
    [['http://127.0.0.1:{port}', String(DEFAULT_API_PORT)]],
  );
  assert.deepEqual(doc.info.license, { name: 'MIT', identifier: 'MIT' });
  assert.ok((doc.info.contact as { name?: string } | undefined)?.name, 'info.contact has a name');
  assert.match(
    fs.readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8'),
    /^MIT License\n\nCopyright \(c\) \d{4} the Boxdesk authors\n/,
  );
  assert.equal(
    (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { license: string }).license,
    'MIT',
  );
});

test("Redocly's recommended rules find no error and no warning in the served and the committed document", async () => {
  for (const [which, document] of [
    ['served', doc],
    ['docs/openapi.json', committedOpenApi()],
  ] as const) {
    const { findings, webSocketOperations } = await lintOpenApi(document);
    assert.deepEqual(findings, [], which);
    // Set aside only where OpenAPI cannot say it: the WebSocket routes answer 101, never 2xx.
    assert.equal(webSocketOperations.length, 2, `${which}: ${webSocketOperations}`);
  }
});
