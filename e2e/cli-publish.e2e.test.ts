import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, api, startCoreProcess, tempDataDir, type CoreProcess } from '../test-support/core-process';
import { previewRequest, startBoxServers } from '../test-support/preview-http';

const BOX_BIN = path.join(ROOT, 'cli', 'bin', 'box.mjs');
const PROJECT = 'clipub';
const NAME = `pub-${crypto.randomBytes(3).toString('hex')}`;
const work = tempDataDir('boxdesk-cli-publish-');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let core: CoreProcess;

function box(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(SERVICE_|BOXDESK_|BOX_PROJECT|BROWSER)/.test(k)) env[k] = v;
  Object.assign(env, { SERVICE_URL: core.url, BOXDESK_DATA_DIR: core.dataDir, BOX_PROJECT: PROJECT }, extraEnv);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BOX_BIN, ...args], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function ok(run: Run, what: string): Run {
  assert.equal(run.code, 0, `${what} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

before(async () => {
  core = await startCoreProcess();
  const res = await api(core, 'POST', `/v1/projects/${PROJECT}/boxes`, { name: NAME });
  assert.equal(res.status, 201, await res.text());
  await startBoxServers((m, p, b) => api(core, m, p, b), `/v1/projects/${PROJECT}/boxes/${NAME}`, {
    port: 8080,
    text: 'from the cli box',
  });
});
after(async () => {
  await api(core, 'DELETE', `/v1/projects/${PROJECT}/boxes/${NAME}`);
  await core.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

test('box publish prints the URL, which serves the box; box unpublish takes it away', async () => {
  const run = ok(
    await box(['publish', NAME, '--port', '8080', '--auth', 'public', '--domain', `${NAME}.test`]),
    'publish',
  );
  const url = new URL(run.stdout.split('\n')[0]!);
  assert.equal(url.hostname, `${NAME}--${PROJECT}.localhost`);
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).body, 'from the cli box');
  assert.equal((await previewRequest(Number(url.port), `${NAME}.test`, '/')).body, 'from the cli box');

  const json = JSON.parse(
    ok(await box(['publish', NAME, '--auth', 'token', '-o', 'json']), 'publish -o json').stdout,
  ) as { url: string; url_settings: { auth: string }; published_domains: string[] };
  assert.deepEqual([json.url, json.url_settings.auth, json.published_domains], [url.origin, 'token', [`${NAME}.test`]]);
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).status, 401);

  assert.match(ok(await box(['unpublish', NAME]), 'unpublish').stdout, /unpublished/);
  assert.equal((await previewRequest(Number(url.port), url.host, '/')).status, 404);
});

test('box open starts the system browser with the URL (?token= once for auth "token"), or prints it when there is none', async () => {
  const url = ok(await box(['publish', NAME, '--port', '8080', '--auth', 'token']), 'publish').stdout.split('\n')[0]!;
  const bin = path.join(work, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const opened = path.join(work, 'opened');
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
  ok(await box(['open', NAME], { PATH: `${bin}:${path.dirname(process.execPath)}` }), 'open');
  const target = fs.readFileSync(opened, 'utf8');
  assert.equal(target, `${url}/?token=${encodeURIComponent(core.token)}`);
  // The URL it opened signs the browser in: a 302 and the session cookie.
  const u = new URL(target);
  const signIn = await previewRequest(Number(u.port), u.host, u.pathname + u.search);
  assert.equal(signIn.status, 302);

  const bare = ok(await box(['open', NAME, '--bare', '--print']), 'open --print');
  assert.equal(bare.stdout, `${url}\n`);
  const noBrowser = ok(await box(['open', NAME], { PATH: path.join(work, 'empty') }), 'open without a browser');
  assert.equal(noBrowser.stdout.trim(), target);
  assert.match(noBrowser.stderr, /no browser/);
});

test('bad command lines exit 2; an unpublished box cannot be opened', async () => {
  assert.equal((await box(['publish', NAME, '--auth', 'everyone'])).code, 2);
  assert.equal((await box(['publish', NAME, '--port', 'http'])).code, 2);
  ok(await box(['unpublish', NAME]), 'unpublish');
  const open = await box(['open', NAME, '--print']);
  assert.notEqual(open.code, 0);
  assert.match(open.stderr, /not published/);
});
