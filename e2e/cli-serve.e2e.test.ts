import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Health } from '../shared/schemas/system';
import { ROOT, TEST_IMAGE, tempDataDir } from '../test-support/core-process';

const BOX_BIN = path.join(ROOT, 'cli', 'bin', 'box.mjs');

describe('box serve', () => {
  const dataDir = tempDataDir('boxdesk-cli-serve-');
  const elsewhere = tempDataDir('boxdesk-cli-serve-cwd-');

  after(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  test('runs the headless core in the foreground, answers /healthz, and stops on SIGTERM with code 0', async () => {
    // From a directory outside the project: box serve finds the core and tsx by itself.
    const child = spawn(
      process.execPath,
      [BOX_BIN, 'serve', '--port', '0', '--data-dir', dataDir, '--default-base', TEST_IMAGE, '--log-level', 'warn'],
      { cwd: elsewhere, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL within 30 s:\n${output}`)), 30_000);
        child.stdout.on('data', () => {
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        void exited.then((code) => reject(new Error(`box serve exited ${code} before listening:\n${output}`)));
      });
      assert.notEqual(new URL(url).port, '0');
      const health = await fetch(`${url}/healthz`);
      const body = (await health.json()) as Health;
      assert.equal(body.api, 'ok');
      assert.equal(health.status, body.status === 'ok' ? 200 : 503);
      assert.ok(
        fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim().length > 10,
        'the core wrote its token into --data-dir',
      );

      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      await assert.rejects(fetch(`${url}/healthz`), 'the core is gone with it');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  test('passes the core’s refusal of a bad flag through, with its exit code', async () => {
    const child = spawn(process.execPath, [BOX_BIN, 'serve', '--host', '0.0.0.0', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /--host must be a loopback address/);
  });
});
