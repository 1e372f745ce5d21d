import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { previewRequest, rawUpgrade, startBoxServers } from '../../../test-support/preview-http';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

// Boxes that misbehave towards the preview proxy (issue 18, item 16): one that accepts a
// request and never answers held the client forever; one whose accept queue is full left the
// connection hanging; a busybox httpd CGI script that ends its header lines with a bare LF (as
// nginx and browsers accept) was a 502. Now: 504 pages within --proxy-header-timeout and
// --proxy-connect-timeout, the LF-only answer passes, and the proxy stays strict with clients.

const HEADER_S = 1;
const CONNECT_S = 1;
const P = '/v1/projects/hostile/boxes';
let t: TestCore;
let host: string;
const seen = { requests: 0, status: new Map<number, number>() };

before(async () => {
  t = await startTestCore({
    args: ['--proxy-header-timeout', String(HEADER_S), '--proxy-connect-timeout', String(CONNECT_S)],
  });
  assert.equal((await t.api('POST', P, { name: 'upstream' })).status, 201);
  await startBoxServers(t.api, `${P}/upstream`, { port: 8080, text: 'fine' });
  // 8090: a server frozen after listening (the kernel accepts, nobody answers). 8091: a frozen
  // listener whose accept queue (backlog 1: two connections) is filled from inside the box, so
  // the next connection is never accepted. 8080's CGI script `lf` ends its header lines with a bare LF.
  const script = [
    'set -e',
    `printf '#!/bin/sh\\nprintf "Content-Type: text/plain\\\\nX-Box: bare-lf\\\\n\\\\nbare lf body\\\\n"\\n' > /www8080/cgi-bin/lf`,
    'chmod +x /www8080/cgi-bin/lf',
    'httpd -f -p 8090 -h /www8080 </dev/null >/dev/null 2>&1 & h=$!',
    'nc -l -p 8091 </dev/null >/dev/null 2>&1 & n=$!',
    'sleep 0.3',
    'kill -STOP $h $n',
    'for i in 1 2 3; do nc 127.0.0.1 8091 </dev/null >/dev/null 2>&1 & done',
    'sleep 0.5',
  ].join('\n');
  const res = await t.api('POST', `${P}/upstream/exec`, { command: ['sh', '-c', script] });
  const out = (await res.json()) as { exit_code: number; stderr: string };
  assert.equal(out.exit_code, 0, out.stderr);
  assert.equal((await t.api('POST', `${P}/upstream/publish`, { port: 8080, auth: 'public' })).status, 200);
  host = `upstream--hostile.localhost:${t.core.proxyPort}`;
});

after(async () => {
  console.log(
    `hostile upstream: ${seen.requests} requests tried; answers ${JSON.stringify(Object.fromEntries(seen.status))}`,
  );
  await t.api('DELETE', `${P}/upstream`);
  await t.close();
});

async function get(path: string, port: number, headers: Record<string, string> = {}) {
  assert.equal((await t.api('PUT', `${P}/upstream`, { port })).status, 200);
  const started = Date.now();
  const res = await previewRequest(t.core.proxyPort, host, path, { headers });
  seen.requests++;
  seen.status.set(res.status, (seen.status.get(res.status) ?? 0) + 1);
  return { ...res, seconds: (Date.now() - started) / 1000 };
}

test('a box that accepts and never answers: 504 after the header timeout, for a page and for an upgrade', async () => {
  const res = await get('/', 8090);
  assert.equal(res.status, 504);
  assert.match(res.headers['content-type'] ?? '', /^text\/plain/);
  assert.match(res.body, /504 Gateway Timeout/);
  assert.match(res.body, /port 8090 took the request but sent no answer within 1 s/);
  const upgrade = await rawUpgrade(t.core.proxyPort, host);
  seen.requests++;
  seen.status.set(upgrade.status, (seen.status.get(upgrade.status) ?? 0) + 1);
  assert.equal(upgrade.status, 504);
  upgrade.socket.destroy();
  console.log(`never answers: 504 after ${res.seconds.toFixed(2)} s (--proxy-header-timeout ${HEADER_S})`);
});

test('a box that never accepts the connection: 504 after the connect timeout', async () => {
  const res = await get('/', 8091);
  assert.equal(res.status, 504);
  assert.match(res.body, /did not accept a connection on port 8091 within 1 s/);
  console.log(`never accepts: 504 after ${res.seconds.toFixed(2)} s (--proxy-connect-timeout ${CONNECT_S})`);
});

test('header lines ended by a bare LF (a busybox httpd CGI script) reach the client as a page', async () => {
  const res = await get('/cgi-bin/lf', 8080);
  assert.equal(res.status, 200, res.body);
  assert.equal(res.headers['x-box'], 'bare-lf');
  assert.equal(res.body, 'bare lf body\n');
});

test('the proxy stays strict with clients: a request with bare-LF lines is a 400', async () => {
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(t.core.proxyPort, '127.0.0.1', () =>
      socket.write(`GET /cgi-bin/lf HTTP/1.1\nHost: ${host}\n\n`),
    );
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  seen.requests++;
  const status = Number(answer.split(' ')[1]);
  seen.status.set(status, (seen.status.get(status) ?? 0) + 1);
  assert.equal(status, 400, answer);
});

test('a server that answers in time is unaffected', async () => {
  const res = await get('/', 8080);
  assert.equal(res.status, 200);
  assert.equal(res.body, 'fine');
});
