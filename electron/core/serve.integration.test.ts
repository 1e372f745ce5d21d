import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, api, startCoreProcess, tempDataDir } from '../../test-support/core-process';
import { boxProcesses } from '../../test-support/box-processes';
import { poll } from '../../test-support/poll';
import { WsSession } from '../../test-support/ws-session';

test('serve refuses a non-loopback host and unknown flags, with the reason', (t) => {
  const dataDir = tempDataDir();
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  for (const [args, pattern] of [
    [['--host', '0.0.0.0'], /loopback/],
    [['--port', 'abc'], /port number/],
    [['--colour'], /unknown option --colour/],
  ] as const) {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'electron/core/serve.ts'), '--data-dir', dataDir, ...args],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, pattern);
  }
});

test('SIGTERM shuts the core down cleanly and ends its sessions: no stray processes in the box', async () => {
  const dataDir = tempDataDir();
  let core = await startCoreProcess({ dataDir });
  assert.match(core.output(), /listening on http:\/\/127\.0\.0\.1:\d+/);
  assert.equal((await api(core, 'POST', '/v1/projects/p/boxes', { name: 'shut' })).status, 201);
  const s = new WsSession(`${core.url.replace('http', 'ws')}/v1/projects/p/boxes/shut/console`, core.token, {
    tty: true,
  });
  await s.waitForControl('ready');
  s.type('sleep 7001 & echo st""arted\r');
  await s.waitForText(/started/);
  assert.equal(await core.stop(), 0, 'exit code 0');
  core = await startCoreProcess({ dataDir });
  try {
    const restarted = core;
    const list = await boxProcesses(
      (method, pathname, body) => api(restarted, method, pathname, body),
      '/v1/projects/p/boxes/shut',
    );
    assert.ok(!list.includes('sleep 7001'), list);
  } finally {
    await api(core, 'DELETE', '/v1/projects/p/boxes/shut').catch(() => undefined);
    await core.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a reader of its output that goes away does not take the core down; SIGTERM still ends it cleanly', async () => {
  const core = await startCoreProcess({});
  // As `npm run serve | head -1`: the reader of the core's stdout closes its end after the banner.
  core.child.stdout!.destroy();
  for (let i = 0; i < 5; i++) {
    // Each request writes a log line to the closed pipe.
    assert.equal((await fetch(`${core.url}/healthz`)).status, 200);
    assert.equal((await api(core, 'GET', '/v1/system')).status, 200);
  }
  assert.equal(core.child.exitCode, null, `the core is still running:\n${core.output().slice(-1500)}`);
  assert.equal(await core.stop(), 0, `exit code 0:\n${core.output().slice(-1500)}`);
});

test('the log is JSON when stdout is a pipe, readable lines with --log-format pretty; the banner either way', async () => {
  const logOf = async (args: string[], seen: RegExp): Promise<string[]> => {
    const core = await startCoreProcess({ args: ['--log-level', 'debug', ...args] });
    try {
      await fetch(`${core.url}/healthz`);
      await poll(async () => seen.test(core.output()), { ms: 15_000, what: `${seen} in the log`, everyMs: 100 });
      assert.match(core.output(), /^Boxdesk core listening on http:\/\/127\.0\.0\.1:\d+ /m);
      return core
        .output()
        .split('\n')
        .filter((line) => line && !/^(Boxdesk core listening|Published boxes)/.test(line));
    } finally {
      await core.stop();
    }
  };
  const json = await logOf([], /"url":"\/healthz"/);
  for (const line of json) assert.equal(typeof JSON.parse(line), 'object', line);
  const pretty = await logOf(['--log-format', 'pretty'], /url: "\/healthz"/);
  assert.ok(
    pretty.some((line) => /^\[\d\d:\d\d:\d\d\.\d{3}\] DEBUG.*: request$/.test(line)),
    'one readable line per request, at debug',
  );
  assert.ok(!pretty.some((line) => line.startsWith('{')), pretty.join('\n'));
});
