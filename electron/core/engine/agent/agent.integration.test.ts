import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Box } from '../../../../shared/schemas/box';
import { api, shOk, startCoreProcess, tempDataDir, type CoreProcess } from '../../../../test-support/core-process';
import { containersOfBox, docker } from '../../../../test-support/docker';
import { poll } from '../../../../test-support/poll';

// The box agent (agent/internal/box, docs/protocol.md): a box made with it runs its exec through
// it, with no engine exec; a box made without it keeps the engine's; a core killed and started
// again finds the agents again; a box sees only its own directory.

const P = '/v1/projects/agent';
const dataDir = tempDataDir();
let core: CoreProcess | null = null;
after(async () => {
  if (core) {
    for (const name of ['old', 'new']) await api(core, 'DELETE', `${P}/boxes/${name}`);
    await core.stop();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function system(): Promise<{ available: boolean; reason?: string }> {
  const res = await api(core!, 'GET', '/v1/system');
  return ((await res.json()) as { agent: { available: boolean; reason?: string } }).agent;
}

async function boxId(name: string): Promise<string> {
  return ((await (await api(core!, 'GET', `${P}/boxes/${name}`)).json()) as { id: string }).id;
}

/** How many execs (or other calls: `event`) the engine made in the box's container since `since` (its own event log says). */
async function engineExecs(name: string, since: number, event = ['exec_create']): Promise<number> {
  const [container] = await containersOfBox(await boxId(name));
  const until = Math.ceil(Date.now() / 1000) + 1;
  const events = (await docker.getEvents({
    since: Math.floor(since / 1000),
    until,
    filters: { container: [container!.Id], event },
  })) as unknown as NodeJS.ReadableStream;
  let text = '';
  for await (const chunk of events) text += chunk.toString();
  return text.split('\n').filter((line) => line.trim()).length;
}

async function create(name: string): Promise<void> {
  const res = await api(core!, 'POST', `${P}/boxes`, { name });
  assert.equal(res.status, 201, await res.text());
}

test('a box made without the agent keeps the engine: its exec works as before', async () => {
  core = await startCoreProcess({ dataDir, env: { BOXDESK_NO_AGENT: '1' } });
  const agent = await system();
  assert.equal(agent.available, false);
  assert.match(agent.reason ?? '', /BOXDESK_NO_AGENT/);
  await create('old');
  await core.stop();
  core = await startCoreProcess({ dataDir });
  assert.equal((await system()).available, true);
  const since = Date.now();
  assert.equal(await shOk(core, P, 'old', 'echo $((6*7))'), '42\n');
  assert.ok((await engineExecs('old', since)) > 0, 'the engine ran it');
});

test("a new box's exec, streamed output and exit code go through its agent, not the engine", async () => {
  await create('new');
  const since = Date.now();
  const res = await api(core!, 'POST', `${P}/boxes/new/exec`, {
    command: ['sh', '-c', 'echo out; echo err >&2; exit 3'],
  });
  const r = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  assert.deepEqual([r.exit_code, r.stdout, r.stderr], [3, 'out\n', 'err\n']);
  const ps = await shOk(core!, P, 'new', 'ps -o pid,args');
  assert.match(ps, /\/\.boxdesk\/agent box -- /, 'the agent runs the main process');
  assert.equal(await engineExecs('new', since), 0, 'no engine exec at all');
});

/** The engine's archive calls (docker cp's): reading a path, extracting into a directory. */
const ARCHIVE_EVENTS = ['archive-path', 'extract-to-dir'];

/** Writes, reads, lists, stats and deletes a file through the API; answers the engine's archive calls meanwhile. */
async function filesRoundTrip(name: string): Promise<number> {
  const since = Date.now();
  const file = `${P}/boxes/${name}/files?path=/work/dir/a.txt`;
  const put = await fetch(core!.url + file, {
    method: 'PUT',
    headers: { authorization: `Bearer ${core!.token}`, 'content-type': 'application/octet-stream' },
    body: 'hello agent\n',
  });
  assert.equal(put.status, 200, await put.text());
  assert.equal(await (await api(core!, 'GET', file)).text(), 'hello agent\n');
  const list = await (await api(core!, 'GET', `${P}/boxes/${name}/files/list?path=/work/dir`)).json();
  assert.deepEqual(
    (list as { items: { path: string }[] }).items.map((e) => e.path),
    ['/work/dir/a.txt'],
  );
  assert.equal((await api(core!, 'GET', `${P}/boxes/${name}/files/stat?path=/work/dir/a.txt`)).status, 200);
  assert.equal((await api(core!, 'DELETE', `${P}/boxes/${name}/files?path=/work&recursive=true`)).status, 204);
  assert.equal((await api(core!, 'GET', file)).status, 404);
  return engineExecs(name, since, ARCHIVE_EVENTS);
}

test("a new box's files go through its agent, not the engine's archive calls; an old box's through the engine", async () => {
  assert.equal(await filesRoundTrip('new'), 0, 'no engine archive call at all');
  assert.ok((await filesRoundTrip('old')) > 0, 'the engine served the old box');
});

test('a read through the agent that a slow reader takes longer than 5 s over still arrives whole', async () => {
  const size = 32 * 1024 * 1024;
  await shOk(core!, P, 'new', `head -c ${size} /dev/zero > /slow.bin`);
  const res = await fetch(`${core!.url}${P}/boxes/new/files?path=/slow.bin`, {
    headers: { authorization: `Bearer ${core!.token}` },
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  let got = (await reader.read()).value?.length ?? 0;
  // Far more than the sockets between hold: the agent's answer waits on this reader meanwhile.
  await new Promise((r) => setTimeout(r, 6_000));
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) got += chunk.value.length;
  assert.equal(got, size);
});

test('a box sees only its own directory; the agent binary is read-only; the host directory is the core’s alone', async () => {
  assert.equal(await shOk(core!, P, 'new', 'ls -A /.boxdesk/run'), 'core.sock\n');
  const write = await api(core!, 'POST', `${P}/boxes/new/exec`, { command: ['sh', '-c', 'echo x > /.boxdesk/agent'] });
  assert.notEqual(((await write.json()) as { exit_code: number }).exit_code, 0);
  const root = path.join(fs.realpathSync(dataDir), 'agents');
  assert.equal(fs.statSync(root).mode & 0o777, 0o700);
  assert.deepEqual(
    fs.readdirSync(root).sort(),
    [await boxId('new')].sort(),
    'a directory for the box with the agent only',
  );
});

test('after the core is killed and started again, the agents dial back in; a box restarted gets its agent again', async () => {
  await core!.kill();
  core = await startCoreProcess({ dataDir });
  // Until its agent is back (it dials every 2 s at most) an exec may take the engine's way.
  const throughAgent = async () => {
    const since = Date.now();
    await shOk(core!, P, 'new', 'true');
    return (await engineExecs('new', since)) === 0;
  };
  await poll(throughAgent, { ms: 15_000, everyMs: 200, what: 'an exec through the agent again' });
  for (const action of ['stop', 'resume'])
    assert.equal((await api(core!, 'POST', `${P}/boxes/new/${action}`)).status, 200);
  const since = Date.now();
  assert.equal(await shOk(core!, P, 'new', 'echo up'), 'up\n');
  assert.equal(await engineExecs('new', since), 0, 'the restarted box has its agent at once');
});

test('a box recreated (restored from a snapshot: a new container beside the old) keeps its agent', async () => {
  const snap = (await (await api(core!, 'POST', `${P}/boxes/new/snapshots`, {})).json()) as { id: string };
  assert.equal((await api(core!, 'POST', `${P}/boxes/new/restore`, { snapshot_id: snap.id })).status, 200);
  const since = Date.now();
  assert.equal(await shOk(core!, P, 'new', 'echo again'), 'again\n');
  assert.equal(await engineExecs('new', since), 0);
});

test("a box frozen behind the core's back still answers its files (the engine's archive calls work on a paused container)", async () => {
  await shOk(core!, P, 'new', 'echo frozen > /tmp/f');
  const [container] = await containersOfBox(await boxId('new'));
  const frozen = docker.getContainer(container!.Id);
  await frozen.pause();
  try {
    const res = await api(core!, 'GET', `${P}/boxes/new/files?path=/tmp/f`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'frozen\n');
  } finally {
    await frozen.unpause().catch(() => undefined);
  }
});

test('a box whose agent ends while an exec runs answers that exec 409 with what to do, never 500', async () => {
  // The test before froze and thawed the box behind the core's back: the core hears of the thaw by the engine's events.
  await poll(async () => ((await (await api(core!, 'GET', `${P}/boxes/new`)).json()) as Box).status === 'running', {
    ms: 10_000,
    everyMs: 100,
    what: 'the box running again',
  });
  const running = api(core!, 'POST', `${P}/boxes/new/exec`, { command: ['sleep', '30'] });
  await poll(async () => (await shOk(core!, P, 'new', 'ps -o args')).includes('sleep 30'), {
    ms: 10_000,
    everyMs: 100,
    what: 'the exec running',
  });
  // The agent is the box's first process: killed, it takes its box and its exec's connection along.
  const [container] = await containersOfBox(await boxId('new'));
  await docker.getContainer(container!.Id).kill();
  const res = await running;
  assert.equal(res.status, 409, await res.clone().text());
  assert.match(((await res.json()) as { detail: string }).detail, /cannot run commands now.*resume it/);
});
