import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { boxProcesses, untilNoProcess } from '../../../test-support/box-processes';
import { poll } from '../../../test-support/poll';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { WsSession } from '../../../test-support/ws-session';

let t: TestCore;
const B = '/v1/projects/ws/boxes/term';

before(async () => {
  // A short grace period so the "session ends after its socket drops" case is quick.
  t = await startTestCore({ args: ['--session-grace', '2'] });
  const created = await t.api('POST', '/v1/projects/ws/boxes', { name: 'term', environment: { BOX_VAR: 'from-box' } });
  // The answer's body, when not a 201: the Podman lane got a bare 404 here once.
  assert.equal(created.status, 201, await created.text());
});
after(async () => {
  await t.api('DELETE', B);
  await t.close();
});

const wsUrl = (path: string) => t.url.replace(/^http/, 'ws') + path;

function execSocket(command: string[], tty: boolean, extra = ''): WsSession {
  const q = command.map((c) => `command=${encodeURIComponent(c)}`).join('&');
  return new WsSession(wsUrl(`${B}/exec?${q}&tty=${tty ? 1 : 0}${extra}`), t.token, { tty });
}

const processList = () => boxProcesses(t.api, B);
/**
 * Until a process started in the background shows: the shell's output can come before its forked
 * child has become the command (it then reads as the shell), which a busy machine makes likely.
 */
const running = (pattern: RegExp) =>
  poll(async () => pattern.test(await processList()), {
    ms: 10_000,
    what: `a process matching ${pattern}`,
    everyMs: 50,
  });
const gone = (pattern: RegExp, ms?: number) => untilNoProcess(t.api, B, pattern, ms);

test('tty=0: stdout and stderr on their channels, then the exit code', async () => {
  const s = execSocket(['sh', '-c', 'echo out; echo err >&2; echo $BOX_VAR; exit 3'], false);
  await s.opened;
  const ready = await s.waitForControl('ready');
  assert.match(String(ready.session), /^ses_/);
  const exit = await s.waitForControl('exit');
  assert.equal(exit.code, 3);
  assert.equal(s.text(1), 'out\nfrom-box\n');
  assert.equal(s.text(2), 'err\n');
  assert.equal((await s.closed).code, 1000);
});

test('tty=0: stdin frames on channel 0 and eof; an unknown control message gets an error frame', async () => {
  const s = execSocket(['cat'], false);
  await s.waitForControl('ready');
  s.control({ type: 'dance' });
  const error = await s.waitForControl('error');
  assert.equal(error.code, 'invalid_body');
  assert.match(String(error.message), /protocol\.md/);
  s.stdin('ping\n');
  await s.waitForText(/ping\n/, 1);
  s.control({ type: 'eof' });
  assert.equal((await s.waitForControl('exit')).code, 0);
});

test('tty=1: the initial size and a resize are visible to stty size', async () => {
  const s = execSocket(['sh'], true, '&cols=91&rows=33');
  await s.waitForControl('ready');
  s.type('stty size\r');
  await s.waitForText(/33 91/);
  s.control({ type: 'resize', cols: 120, rows: 40 });
  s.type('stty size; exit 5\r');
  await s.waitForText(/40 120/);
  assert.equal((await s.waitForControl('exit')).code, 5);
});

test('a signal reaches the foreground process', async () => {
  const s = execSocket(['sh', '-c', 'sleep 4001; echo "after:$?"'], false);
  await s.waitForControl('ready');
  await new Promise((r) => setTimeout(r, 300));
  s.control({ type: 'signal', name: 'SIGTERM' });
  const exit = await s.waitForControl('exit');
  assert.notEqual(exit.code, 0);
  await gone(/sleep 4001/);
});

test('console: a login shell on a TTY with TERM and the box environment', async () => {
  const s = new WsSession(wsUrl(`${B}/console?cols=80&rows=24`), t.token, { tty: true });
  await s.waitForControl('ready');
  s.type('echo "T=$TERM V=$BOX_VAR"; tty\r');
  await s.waitForText(/T=xterm-256color V=from-box/);
  await s.waitForText(/\/dev\/pts\/\d+/);
  s.type('exit 0\r');
  assert.equal((await s.waitForControl('exit')).code, 0);
});

test('console: a dropped socket keeps the session; a reattach replays the output', async () => {
  const first = new WsSession(wsUrl(`${B}/console`), t.token, { tty: true });
  const ready = await first.waitForControl('ready');
  first.type('echo replay-$((40+2))\r');
  await first.waitForText(/replay-42/);
  first.drop();
  await first.closed;
  const again = new WsSession(wsUrl(`${B}/console?session=${ready.session}`), t.token, { tty: true });
  const second = await again.waitForControl('ready');
  assert.equal(second.session, ready.session);
  assert.ok(Number(second.replayed_bytes) > 0);
  await again.waitForText(/replay-42/);
  again.type('echo still-$((1+1))\r');
  await again.waitForText(/still-2/);
  again.type('exit\r');
  await again.waitForControl('exit');
  const stale = new WsSession(wsUrl(`${B}/console?session=${ready.session}`), t.token, { tty: true });
  await assert.rejects(stale.opened, /HTTP 404/);
});

test('when a session ends, every process it started in the box is killed', async () => {
  // Ended by exit: background jobs, even nohup'd ones, go with it.
  const s = new WsSession(wsUrl(`${B}/console`), t.token, { tty: true });
  await s.waitForControl('ready');
  // The quotes keep the typed line's echo from matching: only the command's output says it ran.
  s.type('sleep 5001 & nohup sleep 5002 >/dev/null 2>&1 & echo st""arted\r');
  await s.waitForText(/started/);
  await running(/sleep 5001/);
  s.type('exit\r');
  await s.waitForControl('exit');
  await gone(/sleep 500[12]/);

  // Ended by its socket dropping past the grace period (2 s here).
  const d = new WsSession(wsUrl(`${B}/console`), t.token, { tty: true });
  await d.waitForControl('ready');
  d.type('sleep 6001 & echo b""g\r');
  await d.waitForText(/bg/);
  await running(/sleep 6001/);
  d.drop();
  await d.closed;
  assert.match(await processList(), /sleep 6001/, 'still alive during the grace period');
  await gone(/sleep 6001|sh -l/, 15_000);
});

test('a deliberate close ends the session at once, without waiting out the grace period', async () => {
  const patient = await startTestCore({ args: ['--session-grace', '600'] });
  try {
    assert.equal((await patient.api('POST', '/v1/projects/ws/boxes', { name: 'closer' })).status, 201);
    const s = new WsSession(`${patient.url.replace('http', 'ws')}/v1/projects/ws/boxes/closer/console`, patient.token, {
      tty: true,
    });
    const ready = await s.waitForControl('ready');
    s.type('sleep 9001 & echo b""g\r');
    await s.waitForText(/bg/);
    s.close();
    await s.closed;
    await untilNoProcess(patient.api, '/v1/projects/ws/boxes/closer', /sleep 9001/);
    await assert.rejects(
      new WsSession(
        `${patient.url.replace('http', 'ws')}/v1/projects/ws/boxes/closer/console?session=${ready.session}`,
        patient.token,
        { tty: true },
      ).opened,
      /HTTP 404/,
    );
    await patient.api('DELETE', '/v1/projects/ws/boxes/closer');
  } finally {
    await patient.close();
  }
});

test('the upgrade checks the token, its scope, the Origin and the box', async () => {
  const noToken = new WsSession(wsUrl(`${B}/console`), null, { tty: true });
  await assert.rejects(noToken.opened, /HTTP 401/);
  const wrong = new WsSession(wsUrl(`${B}/console`), 'bdk_invalid', { tty: true });
  await assert.rejects(wrong.opened, /HTTP 401/);
  const { token: reader } = (await (await t.api('POST', '/v1/tokens', { name: 'ro', scopes: ['read'] })).json()) as {
    token: string;
  };
  const readOnly = new WsSession(wsUrl(`${B}/console`), reader, { tty: true });
  await assert.rejects(readOnly.opened, /HTTP 403/);
  const { token: other } = (await (
    await t.api('POST', '/v1/tokens', { name: 'elsewhere', scopes: ['exec'], project: 'elsewhere' })
  ).json()) as { token: string };
  await assert.rejects(new WsSession(wsUrl(`${B}/console`), other, { tty: true }).opened, /HTTP 403/);
  const foreign = new WsSession(wsUrl(`${B}/console`), t.token, { tty: true, origin: 'http://evil.example' });
  await assert.rejects(foreign.opened, /HTTP 403/);
  const header = new WsSession(wsUrl(`${B}/console`), null, {
    tty: true,
    headers: { authorization: `Bearer ${t.token}` },
  });
  await header.waitForControl('ready');
  header.type('exit\r');
  await header.waitForControl('exit');
  await assert.rejects(
    new WsSession(wsUrl('/v1/projects/ws/boxes/nobox/console'), t.token, { tty: true }).opened,
    /HTTP 404/,
  );
  await assert.rejects(new WsSession(wsUrl(`${B}/exec?tty=0`), t.token, { tty: false }).opened, /HTTP 400/);
  await assert.rejects(new WsSession(wsUrl(`${B}/console?token=${t.token}`), null, { tty: true }).opened, /HTTP 401/);
});

test('exec and console on a stopped box: 409', async () => {
  await t.api('POST', '/v1/projects/ws/boxes', { name: 'sleepy' });
  await t.api('POST', '/v1/projects/ws/boxes/sleepy/stop');
  await assert.rejects(
    new WsSession(wsUrl('/v1/projects/ws/boxes/sleepy/console'), t.token, { tty: true }).opened,
    /HTTP 409/,
  );
  await t.api('DELETE', '/v1/projects/ws/boxes/sleepy');
});
