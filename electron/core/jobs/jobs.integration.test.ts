import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Job } from '../../../shared/schemas/jobs';
import { tempDataDir } from '../../../test-support/core-process';
import { poll } from '../../../test-support/poll';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

const dataDir = tempDataDir();
let t: TestCore;
const B = '/v1/projects/jobs/boxes/worker';

before(async () => {
  t = await startTestCore({ dataDir });
  const res = await t.api('POST', '/v1/projects/jobs/boxes', { name: 'worker', environment: { GREETING: 'hi' } });
  assert.equal(res.status, 201, await res.clone().text());
});
after(async () => {
  await t.api('DELETE', B);
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function startJob(command: string): Promise<string> {
  const res = await t.api('POST', `${B}/exec`, { command: ['sh', '-c', command], background: true });
  assert.equal(res.status, 202, await res.clone().text());
  const body = (await res.json()) as { id: string; status: string };
  assert.equal(body.status, 'running');
  return body.id;
}

async function job(id: string): Promise<Job> {
  const res = await t.api('GET', `${B}/jobs/${id}`);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Job;
}

const ended = (id: string) =>
  poll(
    async () => {
      const j = await job(id);
      return j.status === 'running' ? undefined : j;
    },
    { ms: 30_000, what: `job ${id} to end`, everyMs: 100 },
  );

async function output(id: string, query = ''): Promise<{ offset: number; text: string }> {
  const res = await t.api('GET', `${B}/jobs/${id}/output${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return { offset: Number(res.headers.get('x-boxdesk-output-offset')), text: await res.text() };
}

test('a background command answers at once, and its output, exit code and byte counts are kept', async () => {
  const id = await startJob('echo "$GREETING out"; echo err >&2; exit 3');
  const done = await ended(id);
  assert.equal(done.status, 'exited');
  assert.equal(done.exit_code, 3);
  assert.deepEqual(done.command, ['sh', '-c', 'echo "$GREETING out"; echo err >&2; exit 3']);
  assert.equal(done.stdout_bytes, 7);
  assert.equal(done.stderr_bytes, 4);
  assert.ok(done.ended_at && done.ended_at >= done.started_at.slice(0, 19));
  assert.deepEqual(await output(id), { offset: 0, text: 'hi out\n' });
  assert.deepEqual(await output(id, '?stream=stderr'), { offset: 0, text: 'err\n' });
  assert.deepEqual(await output(id, '?from=3'), { offset: 3, text: 'out\n' });
  const list = (await (await t.api('GET', `${B}/jobs`)).json()) as { items: Job[] };
  assert.ok(list.items.some((j) => j.id === id));
});

test('follow streams output as it is written and ends when the job does', async () => {
  const id = await startJob('for i in 1 2 3 4 5; do echo line$i; sleep 0.3; done');
  const res = await t.api('GET', `${B}/jobs/${id}/output?follow=true`);
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /^line1\n/);
  assert.equal((await job(id)).status, 'running', 'the first line came while the job still ran');
  let rest = first;
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.equal(rest, 'line1\nline2\nline3\nline4\nline5\n');
  assert.equal((await job(id)).status, 'exited');
});

test('kill ends the job and every process it started; delete removes it', async () => {
  const id = await startJob('sleep 3001 & sleep 3002; echo never');
  const killed = await (await t.api('POST', `${B}/jobs/${id}/kill`)).json();
  assert.equal((killed as Job).status, 'killed');
  assert.equal((killed as Job).exit_code, null);
  const ps = (await (await t.api('POST', `${B}/exec`, { command: ['ps'] })).json()) as { stdout: string };
  assert.doesNotMatch(ps.stdout, /sleep 300[12]/);
  assert.equal((await job(id)).status, 'killed', 'the wrapper dying does not turn it into an exit');
  assert.equal((await t.api('DELETE', `${B}/jobs/${id}`)).status, 204);
  assert.equal((await t.api('GET', `${B}/jobs/${id}`)).status, 404);
});

test('a stream keeps its newest bytes in a bounded ring while counting all of them', async () => {
  const id = await startJob('yes 0123456789 | head -c 3000000; echo tail');
  const done = await ended(id);
  assert.equal(done.stdout_bytes, 3000005);
  const { offset, text } = await output(id);
  assert.ok(offset > 1_000_000 && offset < 3000005 - 512 * 1024, `kept from ${offset}`);
  assert.equal(text.length, 3000005 - offset);
  assert.ok(text.endsWith('456789\n012tail\n'), 'the bytes are the newest, in order');
});

test('bad requests are refused and change nothing', async () => {
  const before = ((await (await t.api('GET', `${B}/jobs`)).json()) as { items: Job[] }).items.length;
  const withStdin = await t.api('POST', `${B}/exec`, { command: ['cat'], stdin: 'x', background: true });
  assert.equal(withStdin.status, 400);
  assert.match(((await withStdin.json()) as { detail: string }).detail, /stdin/);
  assert.equal((await t.api('GET', `${B}/jobs/job_aaaaaaaaaaaaaaaaaaaa`)).status, 404);
  assert.equal((await t.api('GET', `${B}/jobs/nope`)).status, 400);
  assert.equal((await t.api('GET', `${B}/jobs/job_aaaaaaaaaaaaaaaaaaaa/output?stream=stdin`)).status, 400);
  const after = ((await (await t.api('GET', `${B}/jobs`)).json()) as { items: Job[] }).items.length;
  assert.equal(after, before);
});

test('a job ends with its box: killed while the box is stopped, and after it runs again', async () => {
  const id = await startJob('sleep 3001');
  assert.equal((await t.api('POST', `${B}/stop`)).status, 200);
  assert.equal((await job(id)).status, 'killed');
  assert.equal((await t.api('GET', `${B}/jobs/${id}/output`)).status, 409, 'no output read from a stopped box');
  assert.equal((await t.api('POST', `${B}/resume`)).status, 200);
  const after = await job(id);
  assert.equal(after.status, 'killed');
  assert.equal(after.exit_code, null);
});

test('a job runs on while the core is away and is found again after a restart', async () => {
  const id = await startJob('echo before; while [ ! -f /tmp/go ]; do sleep 0.1; done; echo after');
  await t.close();
  t = await startTestCore({ dataDir });
  assert.equal((await job(id)).status, 'running');
  const followed = await t.api('GET', `${B}/jobs/${id}/output?follow=true`);
  assert.equal((await t.api('POST', `${B}/exec`, { command: ['touch', '/tmp/go'] })).status, 200);
  assert.equal(await followed.text(), 'before\nafter\n');
  const done = await job(id);
  assert.equal(done.status, 'exited');
  assert.equal(done.exit_code, 0);
});
