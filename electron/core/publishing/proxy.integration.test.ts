import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { cgiEnv, previewRequest, rawUpgrade, readBytes, startBoxServers } from '../../../test-support/preview-http';
import { SseClient, boxOf } from '../../../test-support/sse';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { startWsEchoServer } from '../../../test-support/ws-echo-server';
import WebSocket from 'ws';

let t: TestCore;
const project = `pub${randomBytes(3).toString('hex')}`;
const P = `/v1/projects/${project}/boxes`;
const host = (name: string) => `${name}--${project}.localhost:${t.core.proxyPort}`;

before(async () => {
  t = await startTestCore();
  for (const name of ['web', 'idle']) {
    const r = await t.api('POST', P, { name });
    assert.equal(r.status, 201, await r.text());
  }
  await startBoxServers(t.api, `${P}/web`, { port: 8080, text: 'hello from 8080', echoPort: 9000 });
  await startBoxServers(t.api, `${P}/web`, { port: 8081, text: 'hello from 8081' });
  await startBoxServers(t.api, `${P}/web`, { port: 8082, text: 'loopback only', bind: '127.0.0.1' });
  await startWsEchoServer(t.api, `${P}/web`, 9100);
});
after(async () => {
  for (const name of ['web', 'idle', 'other']) await t.api('DELETE', `${P}/${name}`);
  await t.close();
});

async function publish(
  name: string,
  body: Record<string, unknown>,
  status = 200,
): Promise<Box & { code?: string; detail?: string }> {
  const res = await t.api('POST', `${P}/${name}/publish`, body);
  const json = (await res.json()) as Box & { code?: string; detail?: string };
  assert.equal(res.status, status, JSON.stringify(json));
  return json;
}

describe('publish and the box representation', () => {
  test('publish answers the box with its URL on the proxy port, and every answer carries it; an event says so', async () => {
    const sse = new SseClient(`${t.url}/v1/events`, t.token);
    try {
      const box = await publish('web', { port: 8080, auth: 'public' });
      assert.ok(t.core.proxyPort > 0);
      assert.equal(box.url, `http://web--${project}.localhost:${t.core.proxyPort}`);
      assert.deepEqual(box.url_settings, { auth: 'public' });
      assert.equal(box.port, 8080);
      assert.deepEqual(box.published_domains, []);
      const got = (await (await t.api('GET', `${P}/web`)).json()) as Box;
      assert.equal(got.url, box.url);
      const listed = (await (await t.api('GET', P)).json()) as { items: Box[] };
      assert.equal(listed.items.find((b) => b.name === 'web')!.url, box.url);
      const event = await sse.waitFor((e) => e.event === 'box.published');
      assert.equal((boxOf(event) as unknown as Box).url, box.url);
    } finally {
      sse.close();
    }
  });

  test('bad publish bodies are 400 naming the field, and change nothing', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['idle', {}, 'body.port'],
      ['web', { port: 0 }, 'body.port'],
      ['web', { auth: 'open' }, 'body.auth'],
      ['web', { domains: ['127.0.0.1'] }, 'body.domains.0'],
      ['web', { domains: ['ok.test', 'localhost'] }, 'body.domains.1'],
      ['web', { domains: [`idle--${project}.localhost`] }, 'body.domains.0'],
      ['web', { domains: ['under_score.test'] }, 'body.domains.0'],
    ];
    for (const [name, body, path] of cases) {
      const problem = await publish(name, body, 400);
      assert.equal(problem.code, 'invalid_body');
      assert.ok(
        JSON.stringify(problem).includes(path),
        `${JSON.stringify(body)} names ${path}: ${JSON.stringify(problem)}`,
      );
    }
    const web = (await (await t.api('GET', `${P}/web`)).json()) as Box;
    assert.deepEqual([web.port, web.url_settings, web.published_domains], [8080, { auth: 'public' }, []]);
  });

  test("publish without a body keeps what is published (and publishes with the box's port)", async () => {
    const res = await t.api('POST', `${P}/web/publish`);
    assert.equal(res.status, 200);
    const box = (await res.json()) as Box;
    assert.deepEqual([box.port, box.url_settings, box.published_domains], [8080, { auth: 'public' }, []]);
  });
});

describe('more ports of a box', () => {
  test('ports publishes each at its own {port}. host beside the box URL; kept when omitted, [] removes them', async () => {
    const box = await publish('web', { ports: [8081] });
    assert.deepEqual(box.port_urls, [{ port: 8081, url: `http://8081.${host('web')}` }]);
    assert.equal((await previewRequest(t.core.proxyPort, `8081.${host('web')}`, '/')).body, 'hello from 8081');
    assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).body, 'hello from 8080');
    assert.equal((await previewRequest(t.core.proxyPort, `8082.${host('web')}`, '/')).status, 404, 'not published');
    assert.deepEqual((await publish('web', {})).port_urls, box.port_urls, 'omitted: kept');
    const link = await t.api('POST', `${P}/web/sign-in-link?port=8081`);
    assert.deepEqual(
      await link.json(),
      { url: `http://8081.${host('web')}`, expires_at: null },
      'public: the URL itself',
    );
    assert.equal((await t.api('POST', `${P}/web/sign-in-link?port=8082`)).status, 409, 'a port it does not publish');
    const cleared = await publish('web', { ports: [] });
    assert.equal(cleared.port_urls, undefined);
    assert.equal((await previewRequest(t.core.proxyPort, `8081.${host('web')}`, '/')).status, 404);
  });
});

describe('the proxy', () => {
  test('GET reaches the box by Host; the box sees X-Forwarded-* set by us, not by the client', async () => {
    const res = await previewRequest(t.core.proxyPort, host('web'), '/');
    assert.equal(res.status, 200);
    assert.equal(res.body, 'hello from 8080');
    const env = cgiEnv(
      (
        await previewRequest(t.core.proxyPort, host('web'), '/cgi-bin/env', {
          headers: { 'x-forwarded-for': '6.6.6.6', authorization: 'Bearer app-own-secret', cookie: 'app=1' },
        })
      ).body,
    );
    assert.equal(env.HTTP_X_FORWARDED_FOR, '127.0.0.1');
    assert.equal(env.HTTP_X_FORWARDED_PROTO, 'http');
    assert.equal(env.HTTP_X_FORWARDED_HOST, host('web'));
    assert.equal(env.HTTP_HOST, host('web'));
    assert.equal(
      env.HTTP_AUTHORIZATION,
      'Bearer app-own-secret',
      'a public box gets the Authorization meant for the app',
    );
    assert.equal(env.HTTP_COOKIE, 'app=1');
  });

  test('a 50 MB POST streams through to the box', async () => {
    const size = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const res = await previewRequest(t.core.proxyPort, host('web'), '/cgi-bin/count', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(size) },
      body: (req) => {
        let sent = 0;
        const pump = () => {
          while (sent < size) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.trim(), String(size));
  });

  test('an upgrade passes bytes both ways', async () => {
    await publish('web', { port: 9000 });
    try {
      const { status, socket } = await rawUpgrade(t.core.proxyPort, host('web'));
      assert.equal(status, 101);
      const payload = randomBytes(64 * 1024);
      socket.write(payload);
      const echoed = await readBytes(socket, payload.length);
      assert.ok(echoed.equals(payload), `echoed ${echoed.length} bytes, equal to what was sent`);
      socket.destroy();
    } finally {
      await publish('web', { port: 8080 });
    }
  });

  test('a WebSocket client talks to a WebSocket echo server in the box: text and binary messages come back, close is clean', async () => {
    await publish('web', { port: 9100 });
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${t.core.proxyPort}/echo`, { headers: { host: host('web') } });
      const received: { data: Buffer; binary: boolean }[] = [];
      const twoBack = new Promise<void>((resolve, reject) => {
        ws.on('message', (data: Buffer, binary: boolean) => {
          received.push({ data, binary });
          if (received.length === 2) resolve();
        });
        ws.on('error', reject);
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const bytes = randomBytes(100);
      ws.send('through the proxy, both ways');
      ws.send(bytes, { binary: true });
      await twoBack;
      assert.deepEqual(received[0], { data: Buffer.from('through the proxy, both ways'), binary: false });
      assert.equal(received[1]!.binary, true);
      assert.ok(received[1]!.data.equals(bytes));
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.close(1000);
      await closed;
    } finally {
      await publish('web', { port: 8080 });
    }
  });

  test('an unknown host is 404, an upgrade to it is refused and its socket closed', async () => {
    const res = await previewRequest(t.core.proxyPort, `nope--${project}.localhost:${t.core.proxyPort}`, '/');
    assert.equal(res.status, 404);
    assert.match(res.headers['content-type'] ?? '', /^text\/plain/);
    assert.equal(
      (await previewRequest(t.core.proxyPort, `idle--${project}.localhost`, '/')).status,
      404,
      'a box that is not published',
    );
    const { status, socket } = await rawUpgrade(t.core.proxyPort, 'unknown.test');
    assert.equal(status, 404);
    await new Promise((resolve) => socket.once('close', resolve));
  });

  test('a port change re-targets at once', async () => {
    assert.equal((await t.api('PUT', `${P}/web`, { port: 8081 })).status, 200);
    assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).body, 'hello from 8081');
    assert.equal((await t.api('PUT', `${P}/web`, { port: 8080 })).status, 200);
    assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).body, 'hello from 8080');
  });

  test('502 with a plain page when nothing listens on the port', async () => {
    assert.equal((await t.api('PUT', `${P}/web`, { port: 8099 })).status, 200);
    const none = await previewRequest(t.core.proxyPort, host('web'), '/');
    assert.equal(none.status, 502);
    assert.match(none.headers['content-type'] ?? '', /^text\/plain/);
    assert.match(none.body, /nothing listens on port 8099 in the box/);
    assert.equal((await t.api('PUT', `${P}/web`, { port: 8080 })).status, 200);
  });

  test("a server on the box's own 127.0.0.1 is reached through a relay (nc) in the box", async () => {
    assert.equal((await t.api('PUT', `${P}/web`, { port: 8082 })).status, 200);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await previewRequest(t.core.proxyPort, host('web'), '/');
        assert.equal(res.status, 200, res.body);
        assert.equal(res.body, 'loopback only');
      }
      const env = cgiEnv((await previewRequest(t.core.proxyPort, host('web'), '/cgi-bin/env')).body);
      assert.equal(env.HTTP_X_FORWARDED_HOST, host('web'));
      assert.equal(env.REMOTE_ADDR, '127.0.0.1', 'it came from inside the box');
    } finally {
      assert.equal((await t.api('PUT', `${P}/web`, { port: 8080 })).status, 200);
    }
  });

  test('a stopped box can be published and answers 502 until it runs', async () => {
    assert.equal((await t.api('POST', `${P}/idle/stop`)).status, 200);
    const box = await publish('idle', { port: 8080, auth: 'public' });
    assert.equal(box.status, 'stopped');
    const res = await previewRequest(t.core.proxyPort, host('idle'), '/');
    assert.equal(res.status, 502);
    assert.match(res.body, /box "idle" is stopped/);
  });

  test('a custom domain routes; another box cannot take it (409 naming the owner)', async () => {
    await publish('web', { domains: ['MyApp.Test', 'myapp.localhost'] });
    assert.equal((await previewRequest(t.core.proxyPort, 'myapp.test:80', '/')).body, 'hello from 8080');
    assert.equal(
      (await previewRequest(t.core.proxyPort, `myapp.localhost:${t.core.proxyPort}`, '/')).body,
      'hello from 8080',
    );
    const clash = await publish('idle', { domains: ['myapp.test'] }, 409);
    assert.match(clash.detail!, new RegExp(`box "web" in project "${project}"`));
    const idle = (await (await t.api('GET', `${P}/idle`)).json()) as Box;
    assert.deepEqual(idle.published_domains, [], 'nothing changed');
  });

  test('unpublish removes the route and the URL, and says so', async () => {
    const sse = new SseClient(`${t.url}/v1/events`, t.token);
    try {
      const res = await t.api('DELETE', `${P}/web/publish`);
      assert.equal(res.status, 200);
      const box = (await res.json()) as Box;
      assert.equal(box.url, null);
      assert.equal(box.url_settings, null);
      assert.equal(box.published_domains, null);
      assert.equal(box.port, 8080, "the port stays the box's");
      await sse.waitFor((e) => e.event === 'box.unpublished' && boxOf(e).name === 'web');
      assert.equal((await previewRequest(t.core.proxyPort, host('web'), '/')).status, 404);
      assert.equal((await previewRequest(t.core.proxyPort, 'myapp.test', '/')).status, 404);
      assert.equal((await t.api('DELETE', `${P}/web/publish`)).status, 200, 'unpublishing again is harmless');
    } finally {
      sse.close();
    }
  });
});
