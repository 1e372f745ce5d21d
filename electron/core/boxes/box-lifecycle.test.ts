import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import {
  getBox,
  imageWithShell,
  problem,
  registerBase,
  startMemoryCore,
  type MemoryCore,
} from '../../../test-support/memory-core';
import { followLogsUntil } from '../../../test-support/test-core';

// BoxService through the real HTTP API and a real SQLite file, on the in-memory engine:
// the status machine, create rules and races, update, fork and logs.

let t: MemoryCore;
const P = '/v1/projects/lifecycle/boxes';

before(async () => {
  t = await startMemoryCore();
  // A main process that ignores SIGTERM, and one that speaks when asked (SIGUSR1).
  imageWithShell(t.engine, 'test/stubborn:1', "trap '' TERM\nwhile :; do sleep 1; done");
  imageWithShell(
    t.engine,
    'test/talker:1',
    "trap 'exit 0' TERM\ntrap 'echo followed-line' USR1\necho first-line\necho second-line\nwhile :; do sleep 1 & wait $!; done",
  );
  await registerBase(t, 'stubborn', 'test/stubborn:1');
  await registerBase(t, 'talker', 'test/talker:1');
});
after(() => t.close());

async function create(body: Record<string, unknown>): Promise<Box> {
  const res = await t.api('POST', P, body);
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Box;
}

async function boxCount(): Promise<number> {
  return ((await (await t.api('GET', `${P}?limit=500`)).json()) as { items: Box[] }).items.length;
}

async function containerOf(box: Box) {
  const list = await t.engine.listContainers({ 'boxdesk.id': box.id });
  assert.equal(list.length, 1, `one container for ${box.name}`);
  return list[0]!;
}

describe('create', () => {
  test('201 with a running box backed by a labelled container with its limits; its environment reaches execs', async () => {
    const box = await create({ name: 'alpha', config: { cpus: 1, ram_mb: 256 }, environment: { GREETING: 'hi' } });
    assert.equal(box.status, 'running');
    assert.match(box.id, /^box_[a-z2-7]{20}$/);
    assert.deepEqual(box.config, { cpus: 1, ram_mb: 256, region: 'local', storage_gb: 10, pids_limit: 1024 });
    assert.equal(box.storage_enforced, false, 'the engine cannot limit a root');
    const c = await containerOf(box);
    assert.deepEqual([c.running, c.labels['boxdesk.project'], c.labels['boxdesk.box']], [true, 'lifecycle', 'alpha']);
    assert.equal((await t.engine.stats(c.id)).memory_limit_bytes, 256 * 1024 * 1024);
    const env = (await (
      await t.api('POST', `${P}/alpha/exec`, { command: ['sh', '-c', 'echo $GREETING'] })
    ).json()) as {
      stdout: string;
    };
    assert.equal(env.stdout, 'hi\n');
  });

  test('bad bodies get 400 naming the field, and change nothing', async () => {
    const before = await boxCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', port: 80 }, 'body.port'],
      [{ name: 'Not_A_Label' }, 'body.name'],
      [{ name: 'x', config: { cpus: 0 } }, 'body.config.cpus'],
      [{ name: 'x', config: { cpus: 3 } }, 'body.config.cpus'],
      [{ name: 'x', config: { region: 'eu-west' } }, 'body.config.region'],
      [{ name: 'x', environment: { A: 1 } }, 'body.environment.A'],
      [{ name: 'x', base: 'default', fork: 'alpha' }, 'body.fork'],
      [{}, 'body.name'],
    ];
    for (const [body, path] of cases) {
      const p = await problem(await t.api('POST', P, body), 400, 'invalid_body');
      assert.ok(
        p.errors?.some((e) => e.path === path),
        `${JSON.stringify(body)} → ${JSON.stringify(p.errors)}`,
      );
    }
    assert.equal(await boxCount(), before);
    assert.equal((await t.engine.listContainers({ 'boxdesk.box': 'x' })).length, 0);
  });

  test('unknown base, fork source or volume: 404; a taken name: 409', async () => {
    await problem(await t.api('POST', P, { name: 'x', base: 'nope' }), 404, 'not_found');
    await problem(await t.api('POST', P, { name: 'x', fork: 'nope' }), 404, 'not_found');
    await problem(
      await t.api('POST', P, { name: 'x', data_mounts: [{ name: 'vol', path: '/data' }] }),
      404,
      'not_found',
    );
    await problem(await t.api('POST', P, { name: 'alpha' }), 409, 'already_exists');
  });

  test('N simultaneous creates of one name: one 201, N-1 409, one container', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => t.api('POST', P, { name: 'racer' })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    const box = await getBox(t, `${P}/racer`);
    const containers = await t.engine.listContainers({ 'boxdesk.project': 'lifecycle', 'boxdesk.box': 'racer' });
    assert.deepEqual(
      containers.map((c) => c.labels['boxdesk.id']),
      [box.id],
    );
  });
});

describe('read and update', () => {
  test('list filters by status and tag and pages with a cursor', async () => {
    await create({ name: 'tagged-1', tags: { env: 'ci', tier: 'a' } });
    await create({ name: 'tagged-2', tags: { env: 'ci', tier: 'b' } });
    const names = async (query: string) =>
      ((await (await t.api('GET', `${P}?${query}`)).json()) as { items: Box[] }).items.map((b) => b.name);
    assert.deepEqual(await names('tag=env:ci'), ['tagged-1', 'tagged-2']);
    assert.deepEqual(await names('tag=env:ci&tag=tier:b'), ['tagged-2']);
    await t.api('POST', `${P}/tagged-1/stop`);
    assert.deepEqual(await names('status=stopped'), ['tagged-1']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (await t.api('GET', `${P}?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json()) as {
        items: Box[];
        next_cursor: string | null;
      };
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((b) => b.name));
      cursor = page.next_cursor;
    } while (cursor);
    assert.equal(seen.length, new Set(seen).size, 'no duplicates across pages');
    assert.equal(seen.length, await boxCount());
    await problem(await t.api('GET', `${P}?status=sleeping`), 400, 'invalid_body');
    await problem(await t.api('GET', `${P}?cursor=garbage`), 400, 'invalid_body');
  });

  test('update applies ram live, sets port, grace, tags and environment, and answers the full box; bad values change nothing', async () => {
    const res = await t.api('PUT', `${P}/alpha`, {
      config: { ram_mb: 512 },
      port: 8080,
      termination_grace_period_seconds: 3,
      tags: { team: 'infra' },
      environment: { GREETING: 'hello' },
    });
    assert.equal(res.status, 200);
    const box = (await res.json()) as Box;
    assert.deepEqual(
      [box.config.ram_mb, box.port, box.termination_grace_period_seconds, box.tags, box.environment, box.status],
      [512, 8080, 3, { team: 'infra' }, { GREETING: 'hello' }, 'running'],
    );
    assert.equal((await t.engine.stats((await containerOf(box)).id)).memory_limit_bytes, 512 * 1024 * 1024);
    for (const body of [
      { port: '80' },
      { port: -1 },
      { port: 2147483648 },
      { termination_grace_period_seconds: -5 },
      { termination_grace_period_seconds: 1.5 },
      { name: 'renamed' },
    ]) {
      const field = Object.keys(body)[0]!;
      const p = await problem(await t.api('PUT', `${P}/alpha`, body), 400, 'invalid_body');
      assert.ok(
        p.errors?.some((e) => e.path === `body.${field}`),
        JSON.stringify(p),
      );
    }
    assert.equal((await getBox(t, `${P}/alpha`)).termination_grace_period_seconds, 3);
    const cleared = (await (await t.api('PUT', `${P}/alpha`, { port: null })).json()) as Box;
    assert.equal(cleared.port, null);
  });
});

describe('status machine', () => {
  test('stop and resume are idempotent; stop sends SIGTERM (the main process exits 0)', async () => {
    const box = await create({ name: 'cycle' });
    const stopped = (await (await t.api('POST', `${P}/cycle/stop`)).json()) as Box;
    assert.equal(stopped.status, 'stopped');
    const c = await containerOf(box);
    const state = await t.engine.inspectContainer(c.id);
    assert.deepEqual([state?.running, state?.exitCode], [false, 0]);
    const again = await t.api('POST', `${P}/cycle/stop`);
    assert.equal(again.status, 200);
    assert.equal(((await again.json()) as Box).updated_at, stopped.updated_at, 'unchanged');
    const resumed = (await (await t.api('POST', `${P}/cycle/resume`)).json()) as Box;
    assert.equal(resumed.status, 'running');
    assert.equal((await t.engine.inspectContainer(c.id))?.running, true);
    const twice = await t.api('POST', `${P}/cycle/resume`);
    assert.equal(((await twice.json()) as Box).updated_at, resumed.updated_at);
  });

  test('a main process that ignores SIGTERM is killed after the grace period', async () => {
    const box = await create({ name: 'stubborn', base: 'stubborn' });
    await t.api('PUT', `${P}/stubborn`, { termination_grace_period_seconds: 1 });
    const stopped = (await (await t.api('POST', `${P}/stubborn/stop`)).json()) as Box;
    assert.equal(stopped.status, 'stopped');
    assert.equal((await t.engine.inspectContainer((await containerOf(box)).id))?.exitCode, 137);
  });

  test('exec on a stopped box: 409 whose hint is resume; delete from stopped works and removes the container', async () => {
    const box = await getBox(t, `${P}/cycle`);
    await t.api('POST', `${P}/cycle/stop`);
    const refused = await problem(await t.api('POST', `${P}/cycle/exec`, { command: ['true'] }), 409, 'conflict');
    assert.match(refused.hint ?? '', /resume/);
    assert.equal((await t.api('DELETE', `${P}/cycle`)).status, 204);
    await problem(await t.api('GET', `${P}/cycle`), 404, 'not_found');
    await problem(await t.api('POST', `${P}/cycle/stop`), 404, 'not_found');
    assert.deepEqual(await t.engine.listContainers({ 'boxdesk.id': box.id }), []);
  });
});

describe('fork and logs', () => {
  test('fork copies the root at that instant; the source keeps running; the fork’s image goes with it', async () => {
    const source = await create({ name: 'source' });
    await t.api('POST', `${P}/source/exec`, { command: ['sh', '-c', 'echo forked-state > /root/marker'] });
    const fork = await create({ name: 'copy', fork: 'source' });
    assert.equal(fork.status, 'running');
    await t.api('POST', `${P}/source/exec`, { command: ['sh', '-c', 'echo later > /root/marker'] });
    const read = (await (await t.api('POST', `${P}/copy/exec`, { command: ['cat', '/root/marker'] })).json()) as {
      stdout: string;
    };
    assert.equal(read.stdout, 'forked-state\n');
    assert.equal((await getBox(t, `${P}/source`)).status, 'running');
    const [forkImage] = await t.engine.listImages({ 'boxdesk.role': 'fork', 'boxdesk.owner': source.id });
    assert.ok(forkImage, 'the fork runs on a committed copy of the source’s root');
    assert.equal((await t.api('DELETE', `${P}/copy`)).status, 204);
    assert.equal(await t.engine.inspectImage(forkImage.id), null);
  });

  test('logs: the main process’s output, with tail, and follow sees new lines', async () => {
    await create({ name: 'talker', base: 'talker' });
    assert.equal(await (await t.api('GET', `${P}/talker/logs`)).text(), 'first-line\nsecond-line\n');
    assert.equal(await (await t.api('GET', `${P}/talker/logs?tail=1`)).text(), 'second-line\n');
    const text = await followLogsUntil(t, `${P}/talker`, 'followed-line', () =>
      t.api('POST', `${P}/talker/exec`, { command: ['kill', '-USR1', '1'] }),
    );
    assert.equal(text, 'followed-line\n');
  });
});
