import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cgiEnv, previewRequest, rawUpgrade } from '../../../test-support/preview-http';
import { startBoxServers } from '../../../test-support/preview-http';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

// A Boxdesk token never reaches a box, whatever the publish mode (issue 18, item 13): a public
// box received the client's `Authorization: Bearer <boxdesk token>` and `?token=`. Every way a
// client can carry our token (bearer header, ?token=, the session cookie, a bearer.* WebSocket
// subprotocol) is tried on a public and a token box, and what the box saw (its CGI environment,
// the upgrade heads it logged) is searched for the secret. An app's own credentials must pass.

const P = '/v1/projects/leak/boxes';
let t: TestCore;
let secret: string;
const tally = { requests: 0, leaks: 0 };

before(async () => {
  t = await startTestCore();
  const res = await t.api('POST', '/v1/tokens', { name: 'reader', scopes: ['read'] });
  secret = ((await res.json()) as { token: string }).token;
  for (const [name, auth] of [
    ['open', 'public'],
    ['shut', 'token'],
  ] as const) {
    assert.equal((await t.api('POST', P, { name })).status, 201);
    await startBoxServers(t.api, `${P}/${name}`, { port: 8080, text: name, echoPort: 9000 });
    assert.equal((await t.api('POST', `${P}/${name}/publish`, { port: 8080, auth })).status, 200);
  }
});

after(async () => {
  console.log(`token leak: ${tally.requests} requests carrying a Boxdesk token; ${tally.leaks} reached a box`);
  for (const name of ['open', 'shut']) await t.api('DELETE', `${P}/${name}`);
  await t.close();
});

const host = (name: string) => `${name}--leak.localhost:${t.core.proxyPort}`;

/** The CGI environment the box saw for this request; counts a leak when the secret is anywhere in it. */
async function seenByBox(name: string, path: string, headers: Record<string, string> = {}) {
  const res = await previewRequest(t.core.proxyPort, host(name), `/cgi-bin/env${path}`, { headers });
  tally.requests++;
  assert.equal(res.status, 200, res.body);
  noSecretIn(res.body);
  return cgiEnv(res.body);
}

/** What a box saw must not hold the secret (each leak is counted for the summary). */
function noSecretIn(seen: string): void {
  if (seen.includes(secret)) tally.leaks++;
  assert.ok(!seen.includes(secret), `the box saw the token:\n${seen}`);
}

/** The request heads the box's upgrade echo server logged so far. */
async function upgradeHeads(name: string): Promise<string> {
  const res = await t.api('POST', `${P}/${name}/exec`, { command: ['cat', '/tmp/upgrade-heads'] });
  return ((await res.json()) as { stdout: string }).stdout;
}

async function upgradeThrough(name: string, path: string, headers: Record<string, string>): Promise<void> {
  assert.equal((await t.api('PUT', `${P}/${name}`, { port: 9000 })).status, 200);
  try {
    const { status, socket } = await rawUpgrade(t.core.proxyPort, host(name), headers, path);
    tally.requests++;
    assert.equal(status, 101);
    socket.destroy();
  } finally {
    assert.equal((await t.api('PUT', `${P}/${name}`, { port: 8080 })).status, 200);
  }
}

describe('auth "public"', () => {
  test("our bearer token is taken off; an app's own Authorization reaches the box untouched", async () => {
    assert.equal((await seenByBox('open', '', { authorization: `Bearer ${secret}` })).HTTP_AUTHORIZATION, undefined);
    assert.equal(
      (await seenByBox('open', '', { authorization: 'Bearer app-own-secret' })).HTTP_AUTHORIZATION,
      'Bearer app-own-secret',
    );
    assert.equal((await seenByBox('open', '', { authorization: 'Token app-own' })).HTTP_AUTHORIZATION, 'Token app-own');
  });

  test("?token= with our token: a 302 to the same URL without it (no cookie); an app's own ?token= passes", async () => {
    const res = await previewRequest(t.core.proxyPort, host('open'), `/cgi-bin/env?a=1&token=${secret}&b=%20`);
    tally.requests++;
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/cgi-bin/env?a=1&b=%20');
    assert.equal(res.headers['set-cookie'], undefined);
    assert.ok(!res.body.includes(secret));
    assert.equal((await seenByBox('open', '?a=1&token=app-own&b=%20')).QUERY_STRING, 'a=1&token=app-own&b=%20');
  });

  test("our session cookie is taken off, the app's cookies pass", async () => {
    const env = await seenByBox('open', '', { cookie: `theme=dark; boxdesk_preview=v1.x.1.y; lang=en` });
    assert.equal(env.HTTP_COOKIE, 'theme=dark; lang=en');
  });

  test("an upgrade loses our ?token= and bearer.* subprotocol, keeps the app's", async () => {
    await upgradeThrough('open', `/ws?room=1&token=${secret}`, {
      'sec-websocket-protocol': `bearer.${secret}, chat`,
      authorization: `Bearer ${secret}`,
    });
    const heads = await upgradeHeads('open');
    noSecretIn(heads);
    assert.match(heads, /GET \/ws\?room=1 HTTP\/1\.1/);
    assert.match(heads, /sec-websocket-protocol: chat/i);
  });
});

describe('auth "token"', () => {
  test("our bearer admits and is taken off; with a session cookie, an app's own Authorization and ?token= pass", async () => {
    assert.equal((await seenByBox('shut', '', { authorization: `Bearer ${secret}` })).HTTP_AUTHORIZATION, undefined);
    const signIn = await previewRequest(t.core.proxyPort, host('shut'), `/?token=${secret}`);
    tally.requests++;
    assert.equal(signIn.status, 302);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const env = await seenByBox('shut', '?token=app-own', { cookie, authorization: 'Bearer app-own-secret' });
    assert.equal(env.HTTP_AUTHORIZATION, 'Bearer app-own-secret');
    assert.equal(env.QUERY_STRING, 'token=app-own');
    assert.equal(env.HTTP_COOKIE, undefined);
  });

  test('an upgrade admitted by our ?token= reaches the box without it', async () => {
    await upgradeThrough('shut', `/ws?token=${secret}`, {});
    const heads = await upgradeHeads('shut');
    noSecretIn(heads);
    assert.match(heads, /GET \/ws HTTP\/1\.1/);
  });

  test("without our credential, an app's own token is no way in: 401", async () => {
    const res = await previewRequest(t.core.proxyPort, host('shut'), '/?token=app-own', {
      headers: { authorization: 'Bearer app-own-secret' },
    });
    assert.equal(res.status, 401);
  });
});
