import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { resolveConfig } from '../config';
import { startCore } from '../core';
import { TEST_IMAGE, tempDataDir } from '../../../test-support/core-process';

test('no token reaches the log: not in a query string, not in a header', async (t) => {
  const dir = tempDataDir();
  let log = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      log += chunk.toString('utf8');
      done();
    },
  });
  const core = await startCore(
    resolveConfig(['--port', '0', '--data-dir', dir, '--default-base', TEST_IMAGE, '--default-warm', '0']),
    {
      logger: { level: 'info', stream },
    },
  );
  t.after(async () => {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const token = fs.readFileSync(path.join(dir, 'token'), 'utf8').trim();
  await fetch(`${core.url}/v1/bases?token=${token}&x=1`);
  await fetch(`${core.url}/healthz?access_token=${token}`);
  await fetch(`${core.url}/v1/bases`, { headers: { authorization: `Bearer ${token}` } });
  await fetch(`${core.url}/v1/nothing?token=${token}`, { headers: { authorization: `Bearer ${token}` } });
  assert.match(log, /token=\[redacted\]&x=1/, 'the request was logged, with its token redacted');
  assert.match(log, /access_token=\[redacted\]/);
  assert.ok(!log.includes(token), 'the secret is nowhere in the log');
});
