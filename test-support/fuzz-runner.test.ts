import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseChecker, type FuzzResponse } from './fuzz-runner';
import type { FuzzRequest } from './openapi-fuzz';
import type { Operation } from './openapi-operations';

// The fuzzer's judge must be able to say no: each kind of bad answer is caught.

const problem = { 'application/problem+json': { type: 'object' } };
const op: Operation = {
  id: 'GET /v1/things/{name}',
  method: 'GET',
  path: '/v1/things/{name}',
  params: [],
  body: null,
  responses: {
    '200': { 'application/json': { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
    '400': problem,
    '404': problem,
    '500': problem,
  },
  summary: '',
  description: '',
};

function answer(status: number, contentType: string, body: unknown, cut = false): FuzzResponse {
  return { status, contentType, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), cut };
}

const good = (status: number, code: string) => ({
  type: `urn:boxdesk:problem:${code}`,
  title: 't',
  status,
  detail: 'd',
  code,
});
const checker = new ResponseChecker();

test('answers within the contract pass', () => {
  assert.deepEqual(checker.check(op, answer(200, 'application/json; charset=utf-8', { id: 'x' })), []);
  assert.deepEqual(checker.check(op, answer(404, 'application/problem+json', good(404, 'not_found'))), []);
  assert.deepEqual(
    checker.check(
      op,
      answer(404, 'application/problem+json', { ...good(404, 'not_found'), detail: 'no route GET /v1/x' }),
    ),
    [],
  );
});

test('a 5xx fails even when documented', () => {
  assert.match(checker.check(op, answer(500, 'application/problem+json', good(500, 'internal'))).join(), /5xx/);
});

test('an error that is not a problem document fails', () => {
  assert.match(
    checker.check(op, answer(400, 'application/json', good(400, 'invalid_body'))).join(),
    /not application\/problem\+json/,
  );
  assert.match(checker.check(op, answer(400, 'application/problem+json', '<html>')).join(), /not JSON/);
  assert.match(
    checker.check(op, answer(400, 'application/problem+json', { status: 400 })).join(),
    /not a problem document/,
  );
  assert.match(
    checker.check(op, answer(400, 'application/problem+json', good(404, 'not_found'))).join(),
    /differs from HTTP 400/,
  );
});

test('an undocumented status fails', () => {
  assert.match(
    checker.check(op, answer(415, 'application/problem+json', good(415, 'unsupported_media_type'))).join(),
    /not documented/,
  );
  assert.match(checker.check(op, answer(201, 'application/json', { id: 'x' })).join(), /not documented/);
});

test('a 2xx body off its schema or of another type fails', () => {
  assert.match(
    checker.check(op, answer(200, 'application/json', { id: 7 })).join(),
    /does not match the documented schema/,
  );
  assert.match(
    checker.check(op, answer(200, 'text/plain', 'x')).join(),
    /content type text\/plain is not one documented/,
  );
});

test('an ndjson answer is judged a line at a time: empty passes, each line must match', () => {
  const thing = op.responses['200']!['application/json']!;
  const stream: Operation = { ...op, responses: { ...op.responses, '200': { 'application/x-ndjson': thing } } };
  const ndjson = 'application/x-ndjson; charset=utf-8';
  assert.deepEqual(checker.check(stream, answer(200, ndjson, '')), []);
  assert.deepEqual(checker.check(stream, answer(200, ndjson, '{"id":"a"}\n{"id":"b"}\n')), []);
  assert.match(checker.check(stream, answer(200, ndjson, '{"id":"a"}\n{"id":')).join(), /not JSON/);
  assert.match(checker.check(stream, answer(200, ndjson, '{"id":3}\n')).join(), /does not match the documented schema/);
});

const request = (body: string | undefined, hidden?: string[]): FuzzRequest => ({
  op: op.id,
  method: 'GET',
  target: '/v1/things/mine',
  headers: {},
  body,
  hidden,
  kind: 'test',
});

test('a route that takes no body must refuse one: a 2xx to a body fails, no body or an empty one passes', () => {
  const ok = answer(200, 'application/json', { id: 'x' });
  assert.match(checker.check(op, ok, request('{"force":true}')).join(), /takes none/);
  assert.deepEqual(checker.check(op, ok, request(undefined)), []);
  assert.deepEqual(checker.check(op, ok, request('')), []);
});

test('an answer naming what the token may not see fails, unless the request named it', () => {
  const leak = answer(404, 'application/problem+json', { ...good(404, 'not_found'), detail: 'held by box "secret"' });
  assert.match(checker.check(op, leak, request(undefined, ['secret'])).join(), /may not see/);
  assert.deepEqual(checker.check(op, leak, { ...request(undefined, ['secret']), target: '/v1/things/secret' }), []);
});
