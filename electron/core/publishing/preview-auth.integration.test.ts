import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { cgiEnv, previewRequest, rawUpgrade, readBytes, startBoxServers } from '../../../test-support/preview-http';
import { rawRequest } from '../../../test-support/raw-http';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
const project = `auth${randomBytes(3).toString('hex')}`;
const P = `/v1/projects/${project}/boxes`;
let host: string;

async function token(scopes: string[], tokenProject?: string): Promise<{ id: string; token: string }> {
  const res = await t.api('POST', '/v1/tokens', {
    name: `t${randomBytes(3).toString('hex')}`,
    scopes,
    ...(tokenProject ? { project: tokenProject } : {}),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { id: string; token: string };
}

before(async () => {
  t = await startTestCore();
  assert.equal((await t.api('POST', P, { name: 'app' })).status, 201);
  await startBoxServers(t.api, `${P}/app`, { port: 8080, text: 'private page', echoPort: 9000 });
  const res = await t.api('POST', `${P}/app/publish`, { port: 8080, domains: ['private.test'] });
  assert.equal(res.status, 200);
  assert.deepEqual(
    ((await res.json()) as { url_settings: unknown }).url_settings,
    { auth: 'token' },
    'token is the default',
  );
  host = `app--${project}.localhost:${t.core.proxyPort}`;
});
after(async () => {
  await t.api('DELETE', `${P}/app`);
  await t.close();
});

describe('auth "token"', () => {
  test('no token: 401 saying how to sign in; a wrong one: 401', async () => {
    const none = await previewRequest(t.core.proxyPort, host, '/');
    assert.equal(none.status, 401);
    assert.match(none.body, /\?token=/);
    assert.equal(
      (await previewRequest(t.core.proxyPort, host, '/', { headers: { authorization: 'Bearer bdk_wrong' } })).status,
      401,
    );
    assert.equal((await previewRequest(t.core.proxyPort, host, '/?token=bdk_wrong')).status, 401);
  });

  test('a bearer token that can read the project passes, and the box never sees it', async () => {
    const reader = await token(['read'], project);
    const ok = await previewRequest(t.core.proxyPort, host, '/', {
      headers: { authorization: `Bearer ${reader.token}` },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body, 'private page');
    const env = cgiEnv(
      (
        await previewRequest(t.core.proxyPort, host, '/cgi-bin/env', {
          headers: { authorization: `Bearer ${reader.token}` },
        })
      ).body,
    );
    assert.equal(env.HTTP_AUTHORIZATION, undefined);
    assert.ok(!JSON.stringify(env).includes(reader.token));
  });

  test('a token of another project: 403', async () => {
    const stranger = await token(['read'], 'elsewhere');
    const res = await previewRequest(t.core.proxyPort, host, '/', {
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    assert.equal(res.status, 403);
  });

  test('?token= once: a 302 to the URL without it and an HttpOnly session cookie that is not the token; the cookie then works and never reaches the box', async () => {
    const reader = await token(['read']);
    const signIn = await previewRequest(t.core.proxyPort, host, `/cgi-bin/env?a=1&token=${reader.token}&b=2`);
    assert.equal(signIn.status, 302);
    assert.equal(signIn.headers.location, '/cgi-bin/env?a=1&b=2');
    const setCookie = String(signIn.headers['set-cookie']);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    assert.match(setCookie, /Path=\//);
    assert.ok(!setCookie.includes(reader.token), 'the cookie never holds the token');
    const cookie = setCookie.split(';')[0]!;

    const page = await previewRequest(t.core.proxyPort, host, '/cgi-bin/env?a=1&b=2', {
      headers: { cookie: `theme=dark; ${cookie}` },
    });
    assert.equal(page.status, 200);
    const env = cgiEnv(page.body);
    assert.equal(env.HTTP_COOKIE, 'theme=dark', "the app's own cookies pass, ours does not");
    assert.equal(env.QUERY_STRING, 'a=1&b=2');

    const upgrade = await rawUpgrade(t.core.proxyPort, host, { cookie });
    assert.equal(upgrade.status, 404, 'the cookie admits upgrades too (this box answers them on another port)');
    upgrade.socket.destroy();

    // A cookie made for one host is worthless on another (here the box's custom domain).
    assert.equal((await previewRequest(t.core.proxyPort, 'private.test', '/', { headers: { cookie } })).status, 401);
    // A tampered cookie is refused.
    assert.equal(
      (await previewRequest(t.core.proxyPort, host, '/', { headers: { cookie: cookie.slice(0, -2) + 'xx' } })).status,
      401,
    );
    // Deleting the token ends the session at once.
    assert.equal((await t.api('DELETE', `/v1/tokens/${reader.id}`)).status, 204);
    const revoked = await previewRequest(t.core.proxyPort, host, '/', { headers: { cookie } });
    assert.equal(revoked.status, 401);
  });

  test('an upgrade without a token is refused and its socket closed', async () => {
    const { status, socket } = await rawUpgrade(t.core.proxyPort, host);
    assert.equal(status, 401);
    await new Promise((resolve) => socket.once('close', resolve));
  });

  test('an upgrade with the cookie or ?token= passes bytes; the box sees neither the token nor our cookie', async () => {
    const reader = await token(['read'], project);
    const cookie = String(
      (await previewRequest(t.core.proxyPort, host, `/?token=${reader.token}`)).headers['set-cookie'],
    ).split(';')[0]!;
    assert.equal((await t.api('POST', `${P}/app/publish`, { port: 9000 })).status, 200);
    try {
      for (const [path, headers] of [
        ['/ws', { cookie: `app=1; ${cookie}` }],
        [`/ws?token=${reader.token}`, {}],
      ] as const) {
        const { status, socket } = await rawUpgrade(t.core.proxyPort, host, headers, path);
        assert.equal(status, 101, path);
        socket.write('ping');
        assert.equal((await readBytes(socket, 4)).toString(), 'ping');
        socket.destroy();
      }
      const heads = (
        (await (await t.api('POST', `${P}/app/exec`, { command: ['cat', '/tmp/upgrade-heads'] })).json()) as {
          stdout: string;
        }
      ).stdout;
      assert.match(heads, /^GET \/ws HTTP\/1\.1/m);
      assert.match(heads, /^cookie: app=1\r?$/im, "the app's cookie passes");
      assert.ok(!heads.includes(reader.token), 'no token in what the box got');
      assert.ok(!heads.includes('boxdesk_preview'), 'no session cookie in what the box got');
    } finally {
      assert.equal((await t.api('POST', `${P}/app/publish`, { port: 8080 })).status, 200);
    }
  });

  test('switching to public lets anyone in and passes Authorization to the app', async () => {
    assert.equal((await t.api('POST', `${P}/app/publish`, { auth: 'public' })).status, 200);
    try {
      const env = cgiEnv(
        (await previewRequest(t.core.proxyPort, host, '/cgi-bin/env', { headers: { authorization: 'Bearer app-own' } }))
          .body,
      );
      assert.equal(env.HTTP_AUTHORIZATION, 'Bearer app-own');
    } finally {
      assert.equal((await t.api('POST', `${P}/app/publish`, { auth: 'token' })).status, 200);
    }
  });
});

describe('a preview origin can never call the API', () => {
  test('the API refuses an Origin that is a box preview host or a published domain, even for reads', async () => {
    for (const origin of [
      `http://${host}`,
      'http://private.test',
      `http://other--${project}.localhost:${t.core.proxyPort}`,
    ]) {
      const read = await t.api('GET', `${P}/app`, undefined, { origin });
      assert.equal(read.status, 403, origin);
      assert.equal(((await read.json()) as { code: string }).code, 'forbidden');
      const write = await t.api('POST', `${P}/app/stop`, undefined, { origin });
      assert.equal(write.status, 403, origin);
      assert.equal(write.headers.get('access-control-allow-origin'), null);
    }
    assert.equal(
      (await t.api('GET', `${P}/app`, undefined, { origin: t.url })).status,
      200,
      "the API's own origin still works",
    );
  });

  test("the proxy never answers with the API's CORS headers, and the API's Host check refuses a preview host", async () => {
    const res = await previewRequest(t.core.proxyPort, host, '/', {
      headers: { origin: `http://${host}`, authorization: `Bearer ${t.token}` },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    const api = await rawRequest(`${t.url}/v1/projects/${project}/boxes`, {
      headers: { host, authorization: `Bearer ${t.token}` },
    });
    assert.equal(api.status, 403);
  });
});

describe('one-time sign-in links (what the window and box open use)', () => {
  const mint = async (box: string, authorization?: string) =>
    t.api('POST', `${P}/${box}/sign-in-link`, undefined, authorization ? { authorization } : {});
  const codeOf = (url: string) => new URL(url).searchParams.get('boxdesk_code')!;

  test('a read token mints a link with a code, never a token; the proxy swaps the code for its cookie once', async () => {
    const reader = await token(['read'], project);
    const res = await mint('app', `Bearer ${reader.token}`);
    assert.equal(res.status, 200);
    const link = (await res.json()) as { url: string; expires_at: string };
    const url = new URL(link.url);
    assert.equal(url.host, host);
    assert.deepEqual([...url.searchParams.keys()], ['boxdesk_code']);
    assert.ok(!link.url.includes(reader.token) && !link.url.includes(t.token), 'no token in the link');
    const ttl = Date.parse(link.expires_at) - Date.now();
    assert.ok(ttl > 0 && ttl <= 60_000, `expires within a minute (${ttl} ms)`);

    const signIn = await previewRequest(t.core.proxyPort, host, `/cgi-bin/env?a=1&boxdesk_code=${codeOf(link.url)}`);
    assert.equal(signIn.status, 302);
    assert.equal(signIn.headers.location, '/cgi-bin/env?a=1');
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    assert.match(cookie, /^boxdesk_preview=/);
    const page = await previewRequest(t.core.proxyPort, host, '/cgi-bin/env?a=1', { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.equal(cgiEnv(page.body).QUERY_STRING, 'a=1');
    // The session names the token that asked: deleting it ends the session.
    assert.equal((await t.api('DELETE', `/v1/tokens/${reader.id}`)).status, 204);
    assert.equal((await previewRequest(t.core.proxyPort, host, '/', { headers: { cookie } })).status, 401);
  });

  test('a code is spent by its first use, and refused on another box or host; an upgrade never signs in', async () => {
    const used = codeOf(((await (await mint('app')).json()) as { url: string }).url);
    assert.equal((await previewRequest(t.core.proxyPort, host, `/?boxdesk_code=${used}`)).status, 302);
    const again = await previewRequest(t.core.proxyPort, host, `/?boxdesk_code=${used}`);
    assert.equal(again.status, 401);
    assert.match(again.body, /used already or has expired/);
    assert.match(again.body, /box open app/);

    assert.equal((await t.api('POST', P, { name: 'two' })).status, 201);
    try {
      const unpublished = await mint('two');
      assert.equal(unpublished.status, 409);
      assert.match(((await unpublished.json()) as { detail: string }).detail, /box publish two --port N/);
      assert.equal((await t.api('POST', `${P}/two/publish`, { port: 8080 })).status, 200);
      const forApp = codeOf(((await (await mint('app')).json()) as { url: string }).url);
      const elsewhere = await previewRequest(
        t.core.proxyPort,
        `two--${project}.localhost:${t.core.proxyPort}`,
        `/?boxdesk_code=${forApp}`,
      );
      assert.equal(elsewhere.status, 401);
      assert.match(elsewhere.body, /made for another URL/);
      assert.equal((await previewRequest(t.core.proxyPort, host, `/?boxdesk_code=${forApp}`)).status, 401, 'spent');
      // The box's own domain is another host: its cookie would not be the URL's.
      const forDomain = codeOf(((await (await mint('app')).json()) as { url: string }).url);
      assert.equal((await previewRequest(t.core.proxyPort, 'private.test', `/?boxdesk_code=${forDomain}`)).status, 401);
      // Upgrades never sign in, and the code goes no further than the proxy.
      const viaUpgrade = codeOf(((await (await mint('app')).json()) as { url: string }).url);
      const upgrade = await rawUpgrade(t.core.proxyPort, host, {}, `/?boxdesk_code=${viaUpgrade}`);
      assert.equal(upgrade.status, 401);
      upgrade.socket.destroy();
    } finally {
      await t.api('DELETE', `${P}/two`);
    }
  });

  test('public: the link is the URL; a token of another project: 403; no box: 404', async () => {
    assert.equal((await t.api('POST', `${P}/app/publish`, { auth: 'public' })).status, 200);
    try {
      assert.deepEqual(await (await mint('app')).json(), { url: `http://${host}`, expires_at: null });
      // A stale code on a public URL is taken off all the same: a redirect to the URL without it.
      const stale = await previewRequest(t.core.proxyPort, host, '/cgi-bin/env?boxdesk_code=old&x=1');
      assert.equal(stale.status, 302);
      assert.equal(stale.headers.location, '/cgi-bin/env?x=1');
      assert.equal(stale.headers['set-cookie'], undefined);
    } finally {
      assert.equal((await t.api('POST', `${P}/app/publish`, { auth: 'token' })).status, 200);
    }
    const stranger = await token(['read'], 'elsewhere');
    assert.equal((await mint('app', `Bearer ${stranger.token}`)).status, 403);
    assert.equal((await mint('nope')).status, 404);
  });
});
