import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BoxdeskClient, type FetchLike } from '../shared/client';
import { ApiError } from '../shared/errors';
import type { Box } from '../shared/schemas/box';
import { startBoxServe } from '../test-support/cli-runner';
import { TEST_IMAGE, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';
import type { Context } from './context';
import { resolveConnection } from '../sdk/src/connection';
import { waitForStatus } from './wait';

const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit);

describe('waitForStatus against a real core (started with `box serve`)', () => {
  let serve: CoreProcess | undefined;
  let dataDir: string;
  let ctx: Context;
  const prefix = `wait-${crypto.randomBytes(3).toString('hex')}`;

  const contextWith = (fetch: FetchLike): Context => ({
    ...ctx,
    fetch,
    client: new BoxdeskClient({ baseUrl: ctx.connection.url, token: ctx.connection.token, fetch }),
  });
  async function newBox(suffix: string): Promise<Box> {
    return ctx.client.createBox(ctx.project, { name: `${prefix}-${suffix}` });
  }

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-wait-'));
    serve = await startBoxServe(dataDir, ['--port', '0', '--default-base', TEST_IMAGE, '--log-level', 'warn']);
    const { url } = serve;
    const connection = resolveConnection(
      { url },
      {
        env: { BOXDESK_DATA_DIR: dataDir },
        platform: 'linux',
        homedir: os.homedir(),
        readFile: (f) => fs.readFileSync(f, 'utf8'),
      },
    );
    const client = new BoxdeskClient({ baseUrl: url, token: connection.token, fetch: nodeFetch });
    ctx = {
      client,
      connection,
      project: 'default',
      format: 'table',
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      fetch: nodeFetch,
    };
  });

  after(() => teardown(serve, { projects: ['default'], paths: [dataDir] }));

  it('follows the event stream to the target while the change is in flight', async () => {
    const box = await newBox('events');
    const stopping = ctx.client.stopBox(ctx.project, box.name);
    const done = await waitForStatus(ctx, box, 'stopped', { timeoutS: 60 });
    assert.equal(done.status, 'stopped');
    await stopping;
  });

  it('polls when the event stream is not available', async () => {
    const box = await newBox('poll');
    await ctx.client.stopBox(ctx.project, box.name);
    let eventRequests = 0;
    const noEvents: FetchLike = (url, init) => {
      if (url.endsWith('/v1/events')) {
        eventRequests++;
        return Promise.reject(new Error('no event stream here'));
      }
      return nodeFetch(url, init);
    };
    const resuming = ctx.client.resumeBox(ctx.project, box.name);
    const stopped = { ...box, status: 'stopped' as const };
    const done = await waitForStatus(contextWith(noEvents), stopped, 'running', { timeoutS: 60, pollMs: 100 });
    assert.equal(done.status, 'running');
    assert.equal(eventRequests, 1);
    await resuming;
  });

  it('fails with the box’s status_reason when it lands in error', async () => {
    const box = await newBox('error');
    const waiting = waitForStatus(ctx, box, 'stopped', { timeoutS: 60 });
    // Remove the box's container behind the core's back: the core turns the box to error.
    const ids = execFileSync('docker', ['ps', '-aq', '--filter', `label=boxdesk.id=${box.id}`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    assert.equal(ids.length, 1, 'the box has one container');
    execFileSync('docker', ['rm', '-f', ids[0]!]);
    const failure = await waiting.then(
      () => assert.fail('the wait should fail'),
      (e: unknown) => e,
    );
    assert.ok(failure instanceof ApiError, String(failure));
    const now = await ctx.client.getBox(ctx.project, box.name);
    assert.equal(now.status, 'error');
    assert.ok(now.status_reason, 'the core gives a reason');
    assert.equal(failure.message, `box ${box.name} failed: ${now.status_reason}`);
  });

  it('gives up after --timeout, saying where the box is', async () => {
    const box = await newBox('timeout');
    await assert.rejects(
      waitForStatus(ctx, box, 'stopped', { timeoutS: 1 }),
      new RegExp(`box ${box.name} is still running after 1 s \\(waiting for stopped\\)`),
    );
  });
});
