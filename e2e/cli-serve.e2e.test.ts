import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, test } from 'node:test';
import type { Health } from '../shared/schemas/system';
import { runBox, startBoxServe } from '../test-support/cli-runner';
import { TEST_IMAGE, tempDataDir } from '../test-support/core-process';

describe('box serve', () => {
  const dataDir = tempDataDir('boxdesk-cli-serve-');
  const elsewhere = tempDataDir('boxdesk-cli-serve-cwd-');

  after(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  test('runs the headless core in the foreground, answers /healthz, and stops on SIGTERM with code 0', async () => {
    // From a directory outside the project: box serve finds the core and tsx by itself.
    const serve = await startBoxServe(dataDir, ['--port', '0', '--default-base', TEST_IMAGE, '--log-level', 'warn'], {
      cwd: elsewhere,
    });
    try {
      assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(serve.url).port, '0');
      const health = await fetch(`${serve.url}/healthz`);
      const body = (await health.json()) as Health;
      assert.equal(body.api, 'ok');
      assert.equal(health.status, body.status === 'ok' ? 200 : 503);

      assert.ok(serve.token.length > 10, 'the core wrote its token into --data-dir');
      assert.equal(await serve.stop(), 0, serve.output());
      await assert.rejects(fetch(`${serve.url}/healthz`), 'the core is gone with it');
    } finally {
      if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
    }
  });

  test('passes the core’s refusal of a bad flag through, with its exit code', async () => {
    const run = await runBox(['serve', '--host', '0.0.0.0', '--data-dir', dataDir]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--host must be a loopback address/);
  });
});
