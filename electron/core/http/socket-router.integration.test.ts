import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { authHarness, type AuthHarness } from '../../../test-support/http-harness';
import { RateLimiter } from './rate-limiter';
import { loopbackPolicy } from './hardening';
import { SocketRouter } from './socket-router';

let harness: AuthHarness;
let port = 0;
let admin: string;
let reader: string;
let projectOnly: string;
const accepted: Record<string, string>[] = [];

before(async () => {
  harness = authHarness();
  const { auth } = harness;
  admin = auth.create({ name: 'a', scopes: ['admin'] }, null).token;
  reader = auth.create({ name: 'r', scopes: ['read'] }, null).token;
  projectOnly = auth.create({ name: 'p', scopes: ['exec'], project: 'alpha' }, null).token;
  const app = Fastify();
  const sockets = new SocketRouter(app, {
    policy: loopbackPolicy(() => port, []),
    auth,
    limiter: new RateLimiter(0.1, 3),
  });
  // A throwaway route: echoes text frames, reports what it was given.
  sockets.register({
    path: '/v1/projects/:project/echo/:name',
    scope: 'exec',
    accept: async ({ params }) => {
      accepted.push(params);
      return (ws) => ws.on('message', (data) => ws.send(String(data)));
    },
  });
  port = await harness.listen(app);
});
after(() => harness.close());

function open(
  path: string,
  options: { protocols?: string[]; headers?: Record<string, string>; origin?: string } = {},
): Promise<{ status: number; body: string; ws?: WebSocket; headers?: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, options.protocols ?? [], {
      headers: options.headers,
      origin: options.origin,
    });
    ws.once('open', () => resolve({ status: 101, body: '', ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    ws.once('error', reject);
  });
}

test('a registered route opens with a bearer subprotocol or an Authorization header, and gets its parameters', async () => {
  const viaProtocol = await open('/v1/projects/alpha/echo/one', { protocols: ['boxdesk.v1', `bearer.${admin}`] });
  assert.equal(viaProtocol.status, 101);
  assert.equal(viaProtocol.ws!.protocol, 'boxdesk.v1', 'the token is not echoed back');
  viaProtocol.ws!.send('hi');
  assert.equal(String(await new Promise((r) => viaProtocol.ws!.once('message', r))), 'hi');
  viaProtocol.ws!.close();
  const viaHeader = await open('/v1/projects/beta/echo/two', { headers: { authorization: `Bearer ${admin}` } });
  assert.equal(viaHeader.status, 101);
  viaHeader.ws!.close();
  assert.deepEqual(accepted.slice(-2), [
    { project: 'alpha', name: 'one' },
    { project: 'beta', name: 'two' },
  ]);
});

test('every check runs before the route: Host, Origin, token, scope, project, unknown path; answers are problem+json', async () => {
  const before = accepted.length;
  const cases: [string, Parameters<typeof open>[1], number][] = [
    ['/v1/projects/alpha/echo/x', { protocols: [`bearer.${admin}`], headers: { host: 'evil.example' } }, 403],
    ['/v1/projects/alpha/echo/x', { protocols: [`bearer.${admin}`], origin: 'http://evil.example' }, 403],
    ['/v1/projects/alpha/echo/x', {}, 401],
    [`/v1/projects/alpha/echo/x?token=${admin}`, {}, 401],
    ['/v1/projects/alpha/echo/x', { protocols: [`bearer.${reader}`] }, 403],
    ['/v1/projects/beta/echo/x', { protocols: [`bearer.${projectOnly}`] }, 403],
    ['/v1/projects/Not_A_Label/echo/x', { protocols: [`bearer.${admin}`] }, 404],
    ['/v1/elsewhere', { protocols: [`bearer.${admin}`] }, 404],
  ];
  for (const [path, options, status] of cases) {
    const res = await open(path, options);
    assert.equal(res.status, status, `${path} ${JSON.stringify(options)}`);
    assert.equal(JSON.parse(res.body).status, status);
  }
  assert.equal(accepted.length, before, 'the route never saw a refused upgrade');
});

test('the rate limit applies to upgrades, with Retry-After', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await open('/v1/projects/alpha/echo/r', { protocols: [`bearer.${projectOnly}`] });
    statuses.push(res.status);
    if (res.status === 429) assert.ok(Number(res.headers?.['retry-after']) >= 1);
    res.ws?.close();
  }
  assert.deepEqual(statuses.slice(0, 3), [101, 101, 101]);
  assert.ok(
    statuses.slice(3).every((s) => s === 429),
    String(statuses),
  );
});
