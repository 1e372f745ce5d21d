import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { SystemInfo } from '../../../shared/schemas/system';
import { cgiEnv, previewRequest, rawUpgrade, startBoxServers } from '../../../test-support/preview-http';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { findEdgeBinary } from '../engine/agent/files';

const built = findEdgeBinary();
const skip =
  'missing' in built ? `${built.missing}: the Node proxy serves the port, as proxy.integration covers` : false;

let t: TestCore;
const project = `edge${randomBytes(3).toString('hex')}`;
const P = `/v1/projects/${project}/boxes`;
const host = (name: string) => `${name}--${project}.localhost:${t.core.proxyPort}`;

async function edgeInfo(): Promise<SystemInfo['proxy_edge']> {
  const res = await t.api('GET', '/v1/system');
  assert.equal(res.status, 200, `GET /v1/system: ${res.status}`);
  return ((await res.json()) as SystemInfo).proxy_edge;
}

/** Polls /v1/system (the edge reports its counts about once a second) until `ok`, for at most 10 s. */
async function edgeUntil(ok: (info: SystemInfo['proxy_edge']) => boolean, what: string) {
  let info = await edgeInfo();
  for (let i = 0; i < 100 && !ok(info); i++) {
    await new Promise((r) => setTimeout(r, 100));
    info = await edgeInfo();
  }
  assert.ok(ok(info), `${what}: ${JSON.stringify(info)}`);
  return info;
}

/** The core's edge process (a child of this test process, where the core runs). */
function edgePid(): number {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('boxdesk-edge'))
        return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error('no edge process under this one');
}

describe('the edge in front of the preview proxy', { skip }, () => {
  before(async () => {
    t = await startTestCore();
    assert.equal((await t.api('POST', P, { name: 'web' })).status, 201);
    await startBoxServers(t.api, `${P}/web`, { port: 8080, text: 'hello', echoPort: 9000 });
    assert.equal((await t.api('POST', `${P}/web/publish`, { port: 8080, auth: 'public', ports: [9000] })).status, 200);
  });
  after(async () => {
    await t.api('DELETE', `${P}/web`);
    await t.close();
  });

  test('/v1/system says the edge serves the port, and its count shows it answered the requests itself', async () => {
    const before = await edgeInfo();
    assert.equal(before.available, true, JSON.stringify(before));
    assert.equal(before.reason, undefined);
    // The first goes through the Node proxy (which finds the box's address); the rest are the edge's.
    for (let i = 0; i < 20; i++) assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).body, 'hello');
    await edgeUntil((info) => info.requests - before.requests >= 15, 'the edge answered most of 20 requests');
  });

  test('on the fast path the box sees the same headers as from the Node proxy, our session cookie taken off', async () => {
    const before = await edgeUntil((info) => info.requests > 0, 'the route is on the edge');
    const env = cgiEnv(
      (
        await previewRequest(t.core.proxyPort, host('web'), '/cgi-bin/env', {
          headers: {
            'x-forwarded-for': '6.6.6.6',
            forwarded: 'for=6.6.6.6',
            authorization: 'Token app-own-secret',
            cookie: 'app=1; boxdesk_preview=v1.tok_x.1.forged;  other=2',
          },
        })
      ).body,
    );
    assert.equal(env.HTTP_X_FORWARDED_FOR, '127.0.0.1');
    assert.equal(env.HTTP_X_FORWARDED_PROTO, 'http');
    assert.equal(env.HTTP_X_FORWARDED_HOST, host('web'));
    assert.equal(env.HTTP_FORWARDED, undefined);
    assert.equal(env.HTTP_COOKIE, 'app=1; other=2');
    assert.equal(env.HTTP_AUTHORIZATION, 'Token app-own-secret', "the app's own credentials pass");
    await edgeUntil((info) => info.requests > before.requests, 'the edge answered it');
  });

  test('our token as a bearer, ?token= or subprotocol never reaches the box (the edge hands them to Node)', async () => {
    const bearer = cgiEnv(
      (
        await previewRequest(t.core.proxyPort, host('web'), '/cgi-bin/env?a=1', {
          headers: { authorization: `Bearer ${t.token}` },
        })
      ).body,
    );
    assert.equal(bearer.HTTP_AUTHORIZATION, undefined);
    assert.equal(bearer.QUERY_STRING, 'a=1');
    const query = await previewRequest(t.core.proxyPort, host('web'), `/cgi-bin/env?token=${t.token}&b=2`);
    assert.equal(query.status, 302);
    assert.equal(query.headers.location, '/cgi-bin/env?b=2');
    const { status, socket } = await rawUpgrade(t.core.proxyPort, `9000.${host('web')}`, {
      'sec-websocket-protocol': `bearer.${t.token}, chat`,
    });
    socket.destroy();
    assert.equal(status, 101);
    const heads = await t.api('POST', `${P}/web/exec`, { command: ['cat', '/tmp/upgrade-heads'] });
    const out = ((await heads.json()) as { stdout: string }).stdout;
    assert.doesNotMatch(out, new RegExp(t.token), 'the token reached the box');
    assert.match(out, /sec-websocket-protocol: chat/i);
  });

  test("requests through the edge are the box's use: its last_used_at moves", async () => {
    const before = ((await (await t.api('GET', `${P}/web`)).json()) as Box).last_used_at ?? '';
    await new Promise((r) => setTimeout(r, 1100)); // the clock is written at most once a second
    let after = before;
    for (let i = 0; i < 50 && after === before; i++) {
      await previewRequest(t.core.proxyPort, host('web'), '/');
      await new Promise((r) => setTimeout(r, 100));
      after = ((await (await t.api('GET', `${P}/web`)).json()) as Box).last_used_at ?? '';
    }
    assert.ok(after > before, `last_used_at ${before} → ${after}`);
  });

  test('a paused box leaves the fast path and wakes through it; then the edge answers again', async () => {
    assert.equal((await t.api('POST', `${P}/web/pause`)).status, 200);
    const woken = await previewRequest(t.core.proxyPort, host('web'), '/');
    assert.equal(woken.status, 200);
    assert.equal(woken.body, 'hello');
    assert.equal(((await (await t.api('GET', `${P}/web`)).json()) as Box).status, 'running');
    const before = await edgeInfo();
    for (let i = 0; i < 10; i++) await previewRequest(t.core.proxyPort, host('web'), '/');
    await edgeUntil((info) => info.requests > before.requests, 'the edge answers the woken box');
  });

  test('the edge killed, the Node proxy takes the port at once and the core starts the edge again (backoff): no request fails', async () => {
    for (const [round, backoff] of [
      [1, 1],
      [2, 2],
    ]) {
      const killed = edgePid();
      process.kill(killed, 'SIGKILL');
      const gone = await edgeUntil((i) => !i.available, `kill ${round}: the edge is reported gone`);
      assert.match(
        gone.reason ?? '',
        new RegExp(
          `the edge ended \\(killed by SIGKILL\\).*the Node proxy serves the port itself; the edge starts again in ${backoff} s`,
        ),
      );
      // Each request on a new connection, until the edge is back and after: every one is answered.
      // The edge's state is asked every 100 ms, not after every request: the API's rate limit would refuse that.
      let meanwhile = 0;
      for (let up = false, askedAt = 0; !up;) {
        assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).body, 'hello');
        if (++meanwhile > 50_000) assert.fail(`kill ${round}: the edge did not start again`);
        if (Date.now() - askedAt < 100) continue;
        askedAt = Date.now();
        up = (await edgeInfo()).available;
      }
      assert.ok(meanwhile > 0, `kill ${round}: no request went through the Node proxy meanwhile`);
      const back = await edgeInfo();
      assert.equal(back.reason, undefined);
      assert.notEqual(edgePid(), killed, `kill ${round}: the edge running is the one killed`);
      for (let i = 0; i < 20; i++)
        assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).body, 'hello');
      await edgeUntil((i) => i.requests > back.requests, `kill ${round}: the new edge answers requests itself`);
    }
  });
});
