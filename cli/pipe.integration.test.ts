import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { BOX_BIN, cliEnv } from '../test-support/cli-runner';

// `box … | head -1`: the reader closes the pipe before the CLI writes. The CLI stops quietly
// (exit 0, nothing on stderr) instead of dying on EPIPE with a stack trace.
test('a closed stdout ends the real CLI quietly', async () => {
  const child = spawn(process.execPath, [BOX_BIN, '--help'], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // closed long before the CLI has started
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  assert.equal(stderr, '');
  assert.equal(code, 0);
});
