import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import type { BaseBuild, BuildLogLine } from '../../../shared/schemas/builds';
import { docker } from '../../../test-support/docker';
import { poll } from '../../../test-support/poll';
import { ndjsonLines } from '../../../test-support/ndjson';
import { tarOf } from '../../../test-support/tar';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
before(async () => {
  t = await startTestCore({ args: ['--upload-limit', '1M'] });
});
after(() => t.close());

function build(name: string, body: Buffer, query = ''): Promise<Response> {
  return fetch(`${t.url}/v1/bases/${name}/build${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/x-tar' },
    body,
  });
}

async function started(name: string, files: Record<string, string>, query = ''): Promise<BaseBuild> {
  const res = await build(name, await tarOf(files), query);
  assert.equal(res.status, 202, await res.clone().text());
  const body = (await res.json()) as BaseBuild;
  assert.equal(body.status, 'building');
  return body;
}

/** The whole log, followed until the build ends. */
async function followLog(name: string, id: string): Promise<BuildLogLine[]> {
  return ndjsonLines<BuildLogLine>(await t.api('GET', `/v1/bases/${name}/builds/${id}/log?follow=1`));
}

async function getBuild(name: string, id: string): Promise<BaseBuild> {
  return (await (await t.api('GET', `/v1/bases/${name}/builds/${id}`)).json()) as BaseBuild;
}

async function exec(box: string, command: string[]): Promise<string> {
  const res = await t.api('POST', `/v1/projects/b/boxes/${box}/exec`, { command });
  assert.equal(res.status, 200);
  return ((await res.json()) as { stdout: string }).stdout;
}

async function baseNames(): Promise<string[]> {
  const { items } = (await (await t.api('GET', '/v1/bases')).json()) as { items: { name: string }[] };
  return items.map((b) => b.name);
}

test('a multi-step Dockerfile FROM a Boxdesk base builds offline, its log in order; a rebuild keeps the old boxes', async () => {
  const dockerfile = [
    'FROM boxdesk/default',
    'ARG GREETING=none',
    'COPY hello.txt /opt/hello.txt',
    'RUN echo "step-three $GREETING" && echo "$GREETING" > /opt/greeting && echo "end-$GREETING"',
  ].join('\n');
  // A file of its own each run: the engine's cache would otherwise skip the RUN steps' output.
  const nonce = Date.now();
  const first = await started(
    'tools',
    { Dockerfile: dockerfile, 'hello.txt': `v1 ${nonce}\n` },
    '?build_arg=GREETING=hi',
  );
  const log = await followLog('tools', first.id);
  const steps = log.filter((l) => l.step).map((l) => l.step);
  assert.deepEqual(
    steps.map((s) => s!.replace(/ .*/, '')),
    ['1/4', '2/4', '3/4', '4/4'],
  );
  assert.equal(steps[0], '1/4 FROM boxdesk/default', 'the step names the base, not the id it was resolved to');
  const text = log.map((l) => l.step ?? l.stream ?? '').join('');
  assert.ok(text.indexOf('step-three hi') > text.indexOf('4/4 RUN'), 'the RUN output follows its step');
  assert.ok(text.indexOf('end-hi') > text.indexOf('step-three hi'), 'in order');
  const done = await getBuild('tools', first.id);
  assert.equal(done.status, 'done', JSON.stringify(done));
  assert.ok(done.image);
  assert.ok((await baseNames()).includes('tools'));

  const made = await t.api('POST', '/v1/projects/b/boxes', { name: 'old', base: 'tools' });
  assert.equal(made.status, 201, await made.text());
  assert.equal(await exec('old', ['cat', '/opt/hello.txt', '/opt/greeting']), `v1 ${nonce}\nhi\n`);

  // Rebuilt with a changed file: new boxes get it, the box made before keeps its image and runs on.
  const second = await started(
    'tools',
    { Dockerfile: dockerfile, 'hello.txt': `v2 ${nonce}\n` },
    '?build_arg=GREETING=hi',
  );
  await followLog('tools', second.id);
  assert.equal((await getBuild('tools', second.id)).status, 'done');
  assert.equal((await t.api('POST', '/v1/projects/b/boxes', { name: 'new', base: 'tools' })).status, 201);
  assert.equal(await exec('new', ['cat', '/opt/hello.txt']), `v2 ${nonce}\n`);
  assert.equal(await exec('old', ['cat', '/opt/hello.txt']), `v1 ${nonce}\n`);

  const { items } = (await (await t.api('GET', '/v1/bases/tools/builds')).json()) as { items: BaseBuild[] };
  assert.deepEqual(
    items.map((b) => b.id),
    [second.id, first.id],
  );
  for (const box of ['old', 'new']) assert.equal((await t.api('DELETE', `/v1/projects/b/boxes/${box}`)).status, 204);
  assert.equal((await t.api('DELETE', '/v1/bases/tools')).status, 204);
});

test('a failing RUN step is a failed build naming the step, with its output', async () => {
  const { id } = await started('broken', {
    Dockerfile: `FROM boxdesk/default\nRUN echo about-to-fail ${Date.now()} && echo oops-detail >&2 && exit 3\n`,
  });
  const log = await followLog('broken', id);
  const build = await getBuild('broken', id);
  assert.equal(build.status, 'failed');
  assert.match(build.error ?? '', /^step 2\/2 RUN echo about-to-fail .* failed: .*returned a non-zero code: 3/);
  assert.match(build.error ?? '', /its last lines:\n(.|\n)*about-to-fail/);
  assert.ok(log.at(-1)?.error, 'the log ends with the failure');
  assert.ok(!(await baseNames()).includes('broken'), 'a failed build makes no base');
});

test('a cancelled build leaves nothing behind', async () => {
  const marker = `cancel-me-${Date.now()}`;
  const { id } = await started('slow', { Dockerfile: `FROM boxdesk/default\nRUN echo ${marker} && sleep 60\n` });
  const steps = await t.api('GET', `/v1/bases/slow/builds/${id}/log?follow=1`);
  // Wait until the RUN step's container runs, then cancel.
  const reader = steps.body!.getReader();
  let seen = '';
  while (!seen.includes(marker)) seen += new TextDecoder().decode((await reader.read()).value);
  assert.equal((await t.api('DELETE', `/v1/bases/slow/builds/${id}`)).status, 204);
  await reader.cancel();
  assert.equal((await getBuild('slow', id)).status, 'cancelled');
  assert.ok(!(await baseNames()).includes('slow'));
  await poll(async () => (await docker.listContainers({ all: true })).every((c) => !c.Command.includes(marker)), {
    ms: 15000,
    everyMs: 200,
    what: "the build's container to go",
  });
  assert.deepEqual(fs.readdirSync(path.join(t.dataDir, 'build-contexts')), []);
  assert.equal(
    (await t.api('DELETE', `/v1/bases/slow/builds/${id}`)).status,
    409,
    'an ended build cannot be cancelled',
  );
});

test('a context past the upload limit once unpacked is a 413; a context without its Dockerfile a 400; both keep nothing', async () => {
  const huge = gzipSync(
    await tarOf({ Dockerfile: 'FROM boxdesk/default\n', 'big.bin': Buffer.alloc(2 * 1024 * 1024) }),
  );
  assert.ok(huge.length < 1024 * 1024);
  const res = await build('big', huge);
  assert.equal(res.status, 413, await res.clone().text());
  assert.match(((await res.json()) as { detail: string }).detail, /build context unpacks to more than the 1 MiB limit/);
  const missing = await build('big', await tarOf({ 'other.txt': 'x' }), '?dockerfile=docker/Dockerfile');
  assert.equal(missing.status, 400);
  assert.match(((await missing.json()) as { detail: string }).detail, /no Dockerfile at "docker\/Dockerfile"/);
  const unknown = await build('big', await tarOf({ Dockerfile: 'FROM boxdesk/nope\n' }));
  assert.equal(unknown.status, 400);
  assert.match(((await unknown.json()) as { detail: string }).detail, /line 1 .*boxdesk\/nope.*not found/);
  assert.deepEqual(fs.readdirSync(path.join(t.dataDir, 'build-contexts')), []);
  assert.ok(!(await baseNames()).includes('big'));
  const { items } = (await (await t.api('GET', '/v1/bases/big/builds')).json()) as { items: BaseBuild[] };
  assert.deepEqual(items, []);
});
