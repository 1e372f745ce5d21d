import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { boxCli, ok } from '../test-support/cli-runner';
import { api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { previewRequest, startBoxServers } from '../test-support/preview-http';
import { teardown } from '../test-support/teardown';

const PROJECT = 'clipub';
const NAME = `pub-${crypto.randomBytes(3).toString('hex')}`;
const work = tempDataDir('boxdesk-cli-publish-');

let core: CoreProcess;
/** `box` as a user of the local core runs it: SERVICE_URL, the core's token file, BOX_PROJECT. */
const boxWith = (env: NodeJS.ProcessEnv = {}) =>
  boxCli(() => core, { project: PROJECT, connection: 'local', cwd: work, env });
const box = (args: string[], env?: NodeJS.ProcessEnv) => boxWith(env)(...args);

before(async () => {
  core = await startCoreProcess();
  const res = await api(core, 'POST', `/v1/projects/${PROJECT}/boxes`, { name: NAME });
  assert.equal(res.status, 201, await res.text());
  await startBoxServers((m, p, b) => api(core, m, p, b), `/v1/projects/${PROJECT}/boxes/${NAME}`, {
    port: 8080,
    text: 'from the cli box',
  });
});
after(() => teardown(core, { projects: [PROJECT], paths: [work] }));

test('box publish prints the URL, which serves the box; box unpublish takes it away', async () => {
  const run = ok(
    await box(['publish', NAME, '--port', '8080', '--auth', 'public', '--domain', `${NAME}.test`]),
    'publish',
  );
  const url = new URL(run.stdout.split('\n')[0]!);
  assert.equal(url.hostname, `${NAME}--${PROJECT}.localhost`);
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).body, 'from the cli box');
  assert.equal((await previewRequest(Number(url.port), `${NAME}.test`, '/')).body, 'from the cli box');
  // Another port beside it, at its own URL (printed after the box's).
  const more = ok(await box(['publish', NAME, '--also-port', '9090']), 'publish --also-port').stdout.split('\n');
  assert.deepEqual(more.slice(0, 2), [url.origin, `http://9090.${url.host}`]);

  const json = JSON.parse(
    ok(await box(['publish', NAME, '--auth', 'token', '-o', 'json']), 'publish -o json').stdout,
  ) as { url: string; url_settings: { auth: string }; published_domains: string[] };
  assert.deepEqual([json.url, json.url_settings.auth, json.published_domains], [url.origin, 'token', [`${NAME}.test`]]);
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).status, 401);

  assert.match(ok(await box(['unpublish', NAME]), 'unpublish').stdout, /unpublished/);
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).status, 404);
});

test('box open starts the system browser with a one-time sign-in link (never a token) for auth "token", or prints it when there is none', async () => {
  const url = ok(await box(['publish', NAME, '--port', '8080', '--auth', 'token']), 'publish').stdout.split('\n')[0]!;
  const bin = path.join(work, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const opened = path.join(work, 'opened');
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
  const run = ok(await box(['open', NAME], { PATH: `${bin}:${path.dirname(process.execPath)}` }), 'open');
  assert.match(run.stderr, /^opened http:\/\/\S+\n$/);
  assert.ok(run.stderr.includes(url) && !run.stderr.includes('boxdesk_code'));
  const target = fs.readFileSync(opened, 'utf8');
  assert.match(target, new RegExp(`^${url.replace(/[.]/g, '\\.')}/\\?boxdesk_code=[\\w-]+$`));
  assert.ok(!target.includes(core.token), 'the admin token is not in the URL');
  // The link signs the browser in once: a 302 and the session cookie; then it is spent.
  const u = new URL(target);
  const signIn = await previewRequest(Number(u.port), u.host, u.pathname + u.search);
  assert.equal(signIn.status, 302);
  assert.equal(signIn.headers.location, '/');
  assert.match(String(signIn.headers['set-cookie']), /^boxdesk_preview=/);
  assert.equal((await previewRequest(Number(u.port), u.host, u.pathname + u.search)).status, 401);

  const printed = ok(await box(['open', NAME, '--print']), 'open --print');
  assert.match(printed.stdout, /boxdesk_code=/);
  assert.ok(!printed.stdout.includes(core.token) && !printed.stderr.includes(core.token));
  assert.notEqual(printed.stdout.trim(), target, 'a new code each time');
  const bare = ok(await box(['open', NAME, '--bare', '--print']), 'open --bare --print');
  assert.equal(bare.stdout, `${url}\n`);
  const noBrowser = ok(await box(['open', NAME], { PATH: path.join(work, 'empty') }), 'open without a browser');
  assert.match(noBrowser.stdout.trim(), /boxdesk_code=/);
  assert.ok(!noBrowser.stdout.includes(core.token));
  assert.match(noBrowser.stderr, /no browser/);
});

test('bad command lines exit 2; an unpublished box cannot be opened', async () => {
  assert.equal((await box(['publish', NAME, '--auth', 'everyone'])).code, 2);
  assert.equal((await box(['publish', NAME, '--port', 'http'])).code, 2);
  assert.equal((await box(['publish', NAME, '--also-port', '70000'])).code, 2);
  ok(await box(['unpublish', NAME]), 'unpublish');
  const open = await box(['open', NAME, '--print']);
  assert.notEqual(open.code, 0);
  assert.match(open.stderr, /not published/);
});
