import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BoxdeskClient, type FetchLike } from '../../shared/client';
import { ApiError } from '../../shared/errors';
import { DEFAULT_RETRY, retryAfterMs, retryingFetch } from './retry';

type Step = 'drop' | { status: number; headers?: Record<string, string>; body?: unknown };

/** A real HTTP server that answers each request with the next scripted step, and records what came. */
let server: http.Server;
let url: string;
let script: Step[] = [];
let seen: { method: string; key: string | undefined; body: string }[] = [];

const nodeFetch: FetchLike = (u, init) => fetch(u, init as RequestInit) as ReturnType<FetchLike>;

/** A client whose retries record the waits they asked for instead of sleeping them. */
function client(waits: number[]): BoxdeskClient {
  const fetch = retryingFetch(nodeFetch, DEFAULT_RETRY, async (ms) => void waits.push(ms));
  return new BoxdeskClient({ baseUrl: url, token: 't', fetch });
}

const box = { name: 'a', project: 'default', status: 'running' };
const problem = (status: number, code: string, detail: string) => ({ status, body: { status, code, detail } });

describe('retryingFetch against a real HTTP server', () => {
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, key: req.headers['idempotency-key'] as string | undefined, body });
        const step = script.shift() ?? { status: 500, body: { detail: 'the test ran out of steps' } };
        if (step === 'drop') return req.socket.destroy();
        res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
        res.end(step.body === undefined ? '' : JSON.stringify(step.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    script = [];
    seen = [];
  });

  it('waits what Retry-After says on a 429, then answers the retry', async () => {
    const waits: number[] = [];
    script = [
      { ...problem(429, 'rate_limited', 'slow down'), headers: { 'retry-after': '2' } },
      { status: 200, body: box },
    ];
    assert.deepEqual(await client(waits).getBox('default', 'a'), box);
    assert.deepEqual(waits, [2000]);
    assert.equal(seen.length, 2);
  });

  it('does not repeat a POST without an Idempotency-Key after a 503 or a lost connection', async () => {
    const waits: number[] = [];
    script = [{ ...problem(503, 'engine_unavailable', 'the engine is down'), headers: { 'retry-after': '1' } }];
    await assert.rejects(client(waits).exec('default', 'a', { command: ['true'] }), { code: 'engine_unavailable' });
    script = ['drop'];
    await assert.rejects(client(waits).exec('default', 'a', { command: ['true'] }), { code: 'engine_unavailable' });
    assert.equal(seen.length, 2);
    assert.deepEqual(waits, []);
  });

  it('repeats a create with its Idempotency-Key after a lost connection, waiting out "still running"', async () => {
    const waits: number[] = [];
    script = [
      'drop',
      problem(409, 'conflict', 'the request with Idempotency-Key "k1" is still running; retry once it has answered'),
      { status: 201, body: box },
    ];
    const made = await client(waits).createBox('default', { name: 'a' }, { idempotencyKey: 'k1' });
    assert.deepEqual(made, box);
    assert.deepEqual(
      seen.map((s) => [s.method, s.key, s.body]),
      Array(3).fill(['POST', 'k1', '{"name":"a"}']),
    );
    assert.equal(waits.length, 2);
  });

  it('hands over a name already taken (409 already_exists) at once, even on a retry', async () => {
    script = ['drop', problem(409, 'already_exists', 'box "a" already exists')];
    const err = await client([])
      .createBox('default', { name: 'a' }, { idempotencyKey: 'k2' })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'already_exists');
    assert.equal(seen.length, 2);
  });

  it('hands back a 429 whose Retry-After is longer than it waits, and gives up after its retries', async () => {
    const waits: number[] = [];
    script = [{ ...problem(429, 'rate_limited', 'slow down'), headers: { 'retry-after': '3600' } }];
    await assert.rejects(client(waits).getBox('default', 'a'), { code: 'rate_limited' });
    assert.equal(seen.length, 1);
    script = Array(DEFAULT_RETRY.retries + 1).fill(problem(503, 'storage_busy', 'busy'));
    await assert.rejects(client(waits).getBox('default', 'a'), { code: 'storage_busy' });
    assert.equal(seen.length, 1 + DEFAULT_RETRY.retries + 1);
    assert.deepEqual(waits, [250, 500, 1000]);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs('5', now), 5000);
    assert.equal(retryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now), 3000);
    assert.equal(retryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
  });
});
