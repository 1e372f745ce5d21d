import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { containersOfBox, docker, waitFor } from '../../../test-support/docker';
import { createBox, withBoxesCore, type TestCore } from '../../../test-support/test-core';
import { WsSession } from '../../../test-support/ws-session';

// Changes made to a box's container behind Boxdesk's back (docker pause,
// docker rm) show in the box's status, and what the status forbids answers
// 409 with a hint that works, never a 500 or a 404 with raw engine text.

let t: TestCore;
const P = '/v1/projects/enginestate/boxes';

withBoxesCore(P, (core) => (t = core));

const create = (name: string): Promise<Box> => createBox(t, P, { name });

async function conflict(res: Response): Promise<{ detail: string; hint?: string }> {
  const body = (await res.json()) as { code: string; detail: string; hint?: string };
  assert.equal(res.status, 409, JSON.stringify(body));
  assert.equal(body.code, 'conflict');
  return body;
}

function untilStatus(name: string, status: string): Promise<Box> {
  return waitFor(
    async () => {
      const box = (await (await t.api('GET', `${P}/${name}`)).json()) as Box;
      return box.status === status ? box : null;
    },
    15_000,
    `box ${name} to be ${status}`,
  );
}

const wsUrl = (p: string) => t.url.replace(/^http/, 'ws') + p;

test('a container paused outside Boxdesk: exec and console answer 409 (not 500), the box shows it, resume thaws it', async () => {
  const box = await create('frozen');
  const [c] = await containersOfBox(box.id);
  await docker.getContainer(c!.Id).pause();
  // At once, before the status catches up: the engine's refusal is a 409 about the box.
  const early = await conflict(await t.api('POST', `${P}/frozen/exec`, { command: ['true'] }));
  assert.match(early.hint ?? '', /resume/);
  const errored = await untilStatus('frozen', 'error');
  assert.match(errored.status_reason ?? '', /paused outside Boxdesk/);
  const exec = await conflict(await t.api('POST', `${P}/frozen/exec`, { command: ['true'] }));
  assert.match(exec.hint ?? '', /resume it/);
  await assert.rejects(new WsSession(wsUrl(`${P}/frozen/console`), t.token, { tty: true }).opened, /HTTP 409/);
  const resumed = await t.api('POST', `${P}/frozen/resume`);
  assert.equal(resumed.status, 200, await resumed.clone().text());
  assert.equal(((await resumed.json()) as Box).status, 'running');
  const ran = (await (await t.api('POST', `${P}/frozen/exec`, { command: ['echo', 'thawed'] })).json()) as {
    stdout: string;
  };
  assert.equal(ran.stdout, 'thawed\n');
});

test('a pause undone outside Boxdesk brings the box back to running', async () => {
  const box = (await (await t.api('GET', `${P}/frozen`)).json()) as Box;
  const [c] = await containersOfBox(box.id);
  await docker.getContainer(c!.Id).pause();
  await untilStatus('frozen', 'error');
  await docker.getContainer(c!.Id).unpause();
  await untilStatus('frozen', 'running');
});

test('stop on a paused box stops it', async () => {
  const box = (await (await t.api('GET', `${P}/frozen`)).json()) as Box;
  const [c] = await containersOfBox(box.id);
  await docker.getContainer(c!.Id).pause();
  await untilStatus('frozen', 'error');
  const res = await t.api('POST', `${P}/frozen/stop`);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(((await res.json()) as Box).status, 'stopped');
  assert.equal((await docker.getContainer(c!.Id).inspect()).State.Running, false);
});

test('PUT on a box in error whose container is gone records the change (200, not a 404 with engine text)', async () => {
  const box = await create('orphaned');
  const [c] = await containersOfBox(box.id);
  await docker.getContainer(c!.Id).remove({ force: true });
  await waitFor(
    async () => /removed outside Boxdesk/.test((await untilStatus('orphaned', 'error')).status_reason ?? ''),
    15_000,
    'the box to say its container was removed',
  );
  const res = await t.api('PUT', `${P}/orphaned`, { config: { cpus: 1, ram_mb: 512 }, tags: { kept: 'yes' } });
  assert.equal(res.status, 200, await res.clone().text());
  const updated = (await res.json()) as Box;
  assert.equal(updated.config.ram_mb, 512);
  assert.deepEqual(updated.tags, { kept: 'yes' });
  assert.equal(updated.status, 'error');
  // What it may not do names only what it may: delete.
  const refused = await conflict(await t.api('POST', `${P}/orphaned/resume`));
  assert.match(refused.hint ?? '', /delete/);
  assert.doesNotMatch(refused.hint ?? '', /resume/);
  const exec = await conflict(await t.api('POST', `${P}/orphaned/exec`, { command: ['true'] }));
  assert.doesNotMatch(exec.hint ?? '', /resume/);
  assert.equal((await t.api('DELETE', `${P}/orphaned`)).status, 204);
});
