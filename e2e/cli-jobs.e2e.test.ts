import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Job } from '../shared/schemas/jobs';
import { boxCli, ok } from '../test-support/cli-runner';
import { startCoreProcess, type CoreProcess } from '../test-support/core-process';
import { teardown } from '../test-support/teardown';

const P = 'clijobs';
let core: CoreProcess;
const box = boxCli(() => core, { project: P });

before(async () => {
  core = await startCoreProcess();
  ok(await box('create', 'runner'), 'create');
});

after(() => teardown(core, { projects: [P] }));

test('box exec --background prints a job id; box jobs ls|get|logs -f|kill|rm', async () => {
  const id = ok(
    await box('exec', '--background', 'runner', '--', 'sh', '-c', 'echo one; echo oops >&2; sleep 1; echo two; exit 4'),
    'exec --background',
  ).stdout.trim();
  assert.match(id, /^job_[a-z2-7]{20}$/);

  assert.match(
    ok(await box('jobs', 'ls', 'runner'), 'jobs ls').stdout,
    /^ID\s+STATUS\s+EXIT\s+OUT\s+ERR\s+AGE\s+COMMAND$/m,
  );
  assert.equal(ok(await box('jobs', 'logs', '-f', 'runner', id), 'jobs logs -f').stdout, 'one\ntwo\n');
  assert.equal(ok(await box('jobs', 'logs', '--stderr', 'runner', id), 'jobs logs --stderr').stdout, 'oops\n');
  assert.equal(ok(await box('jobs', 'logs', '--from', '4', 'runner', id), 'jobs logs --from').stdout, 'two\n');
  const done = JSON.parse(ok(await box('jobs', 'get', 'runner', id, '-o', 'json'), 'jobs get').stdout) as Job;
  assert.equal(done.status, 'exited');
  assert.equal(done.exit_code, 4);
  assert.match(ok(await box('jobs', 'ls', 'runner'), 'jobs ls').stdout, new RegExp(`${id}\\s+exited\\s+4\\s`));

  const sleeper = ok(await box('exec', '--background', 'runner', '--', 'sleep', '3001'), 'exec').stdout.trim();
  assert.equal(ok(await box('jobs', 'kill', 'runner', sleeper), 'jobs kill').stdout, `job ${sleeper} killed\n`);
  assert.match(
    ok(await box('jobs', 'rm', 'runner', id, sleeper), 'jobs rm').stdout,
    new RegExp(`job ${sleeper} deleted`),
  );
  assert.equal(ok(await box('jobs', 'ls', 'runner'), 'jobs ls').stdout, 'box runner has no jobs\n');
});

test('refusals: a usage error for what a job cannot take, the API detail for an unknown job', async () => {
  const usage = await box('exec', '--background', '--timeout', '5', 'runner', '--', 'true');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--timeout are not available with --background/);
  const unknown = await box('jobs', 'kill', 'runner', 'job_aaaaaaaaaaaaaaaaaaaa');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /box "runner" has no job "job_aaaaaaaaaaaaaaaaaaaa"/);
});
