import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { tempDataDir } from '../../../test-support/core-process';
import {
  getBox,
  imageWithShell,
  problem,
  registerBase,
  startMemoryCore,
  until,
  untilStatus,
  type MemoryCore,
} from '../../../test-support/memory-core';
import { assertOomReported } from '../../../test-support/box-processes';
import { SseClient } from '../../../test-support/sse';
import { MemoryEngine } from '../engine/memory/memory-engine';
import type { Program } from '../engine/memory/memory-process';

// The reconciler's decisions, on the in-memory engine: what it does when the
// engine's containers stop agreeing with the store (a container removed, paused
// or started behind the core's back, an orphan, a main process that exits,
// crash-loops or is OOM-killed), live and at start.

let t: MemoryCore;
const P = '/v1/projects/reconcile/boxes';

/** Holds more memory than any box's limit allows: the kernel kills it. */
const hog: Program = async (ctx) => {
  ctx.stdout.write('hogging memory\n');
  for (;;) {
    ctx.allocate(16 * 1024 * 1024);
    await ctx.sleep(1);
  }
};

before(async () => {
  t = await startMemoryCore();
  imageWithShell(t.engine, 'test/crashing:1', 'echo "broken shell says goodbye" >&2\nexit 3');
  imageWithShell(t.engine, 'test/no-sh:1', null);
  imageWithShell(t.engine, 'test/hog:1', hog);
  // Exits 5 the first time, then serves forever: one exit is restarted, not an error.
  imageWithShell(
    t.engine,
    'test/once:1',
    "if [ -f /tmp/ran ]; then trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done; fi\ntouch /tmp/ran\necho first run ends\nexit 5",
  );
  for (const name of ['crashing', 'no-sh', 'hog', 'once']) await registerBase(t, name, `test/${name}:1`);
});
after(() => t.close());

async function create(name: string, body: Record<string, unknown> = {}): Promise<Box> {
  const res = await t.api('POST', P, { name, ...body });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Box;
}

async function containerId(box: Box): Promise<string> {
  const [c] = await t.engine.listContainers({ 'boxdesk.id': box.id });
  assert.ok(c, `${box.name} has a container`);
  return c.id;
}

describe('the engine changed behind the core', () => {
  test('a container removed outside: the box turns error saying so, never recreated; a PUT is recorded; delete works', async () => {
    const box = await create('vanishing');
    await t.engine.removeContainer(await containerId(box));
    const errored = await untilStatus(t, `${P}/vanishing`, 'error');
    assert.match(errored.status_reason ?? '', /removed outside Boxdesk; delete the box and create it again/);
    assert.deepEqual(await t.engine.listContainers({ 'boxdesk.id': box.id }), [], 'not recreated');
    const refused = await problem(await t.api('POST', `${P}/vanishing/resume`), 409, 'conflict');
    assert.match(refused.hint ?? '', /delete/);
    assert.doesNotMatch(refused.hint ?? '', /resume/);
    const res = await t.api('PUT', `${P}/vanishing`, { config: { ram_mb: 512 }, tags: { kept: 'yes' } });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(
      [((await res.json()) as Box).config.ram_mb, (await getBox(t, `${P}/vanishing`)).status],
      [512, 'error'],
    );
    assert.equal((await t.api('DELETE', `${P}/vanishing`)).status, 204);
  });

  test('a labelled container of this core without a box is removed as soon as the engine reports it', async () => {
    const box = await create('witness');
    const [ours] = await t.engine.listContainers({ 'boxdesk.id': box.id });
    const orphan = await t.engine.createContainer({
      name: 'orphan-of-reconcile',
      image: 'boxdesk-test/busybox:1',
      command: ['sleep', '600'],
      hostname: 'orphan',
      env: {},
      labels: { 'boxdesk.id': 'box_orphanorphanorphan00', 'boxdesk.instance': ours!.labels['boxdesk.instance']! },
      limits: { cpus: 1, ramMb: 64, pidsLimit: 64 },
      storageGb: null,
      graceSeconds: 1,
    });
    await t.engine.startContainer(orphan);
    await until(async () => (await t.engine.inspectContainer(orphan)) === null, 'the orphan to be removed');
    assert.equal((await t.engine.inspectContainer(await containerId(box)))?.running, true, 'the box’s own stays');
  });

  test('paused outside: exec is a 409 naming resume, the box turns error; resume thaws it; an unpause outside brings it back', async () => {
    const box = await create('frozen');
    const id = await containerId(box);
    await t.engine.pauseContainer(id);
    const early = await problem(await t.api('POST', `${P}/frozen/exec`, { command: ['true'] }), 409, 'conflict');
    assert.match(early.hint ?? '', /resume/);
    assert.match((await untilStatus(t, `${P}/frozen`, 'error')).status_reason ?? '', /paused outside Boxdesk/);
    const resumed = await t.api('POST', `${P}/frozen/resume`);
    assert.equal(((await resumed.json()) as Box).status, 'running');
    const ran = (await (await t.api('POST', `${P}/frozen/exec`, { command: ['echo', 'thawed'] })).json()) as {
      stdout: string;
    };
    assert.equal(ran.stdout, 'thawed\n');
    await t.engine.pauseContainer(id);
    await untilStatus(t, `${P}/frozen`, 'error');
    await t.engine.unpauseContainer(id);
    await untilStatus(t, `${P}/frozen`, 'running');
    await t.engine.pauseContainer(id);
    await untilStatus(t, `${P}/frozen`, 'error');
    const stopped = await t.api('POST', `${P}/frozen/stop`);
    assert.equal(((await stopped.json()) as Box).status, 'stopped', 'stop works on a box paused outside');
    assert.equal((await t.engine.inspectContainer(id))?.running, false);
  });

  test('a stopped box whose container was started outside is stopped again', async () => {
    const box = await create('sleeper');
    await t.api('POST', `${P}/sleeper/stop`);
    const id = await containerId(box);
    await t.engine.startContainer(id);
    await until(async () => (await t.engine.inspectContainer(id))?.running === false, 'the container to be stopped');
    assert.equal((await getBox(t, `${P}/sleeper`)).status, 'stopped');
  });
});

describe('the main process', () => {
  test('one exit: the core restarts it and the box stays running', async () => {
    const box = await create('once', { base: 'once' });
    const id = await containerId(box);
    await until(async () => {
      const log = await (await t.api('GET', `${P}/once/logs`)).text();
      return log.includes('first run ends') && (await t.engine.inspectContainer(id))?.running;
    }, 'the main process to run again');
    assert.equal((await getBox(t, `${P}/once`)).status, 'running');
    const ran = (await (await t.api('POST', `${P}/once/exec`, { command: ['echo', 'alive'] })).json()) as {
      stdout: string;
    };
    assert.equal(ran.stdout, 'alive\n');
  });

  test('a crash loop turns the box to error with the exit code, the count and the last output; exec is a 409; resume tries again', async () => {
    await create('looper', { base: 'crashing' });
    const box = await untilStatus(t, `${P}/looper`, 'error');
    assert.match(
      box.status_reason ?? '',
      /main process exited with code 3 \(it exited by itself; 3 exits within 60 s\)/,
    );
    assert.match(box.status_reason ?? '', /last output: .*broken shell says goodbye/s);
    const exec = await problem(await t.api('POST', `${P}/looper/exec`, { command: ['true'] }), 409, 'conflict');
    assert.match(exec.hint ?? '', /resume it|delete/);
    await problem(await t.api('GET', `${P}/looper/stats`), 409, 'conflict');
    const res = await t.api('POST', `${P}/looper/resume`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.match((await untilStatus(t, `${P}/looper`, 'error')).status_reason ?? '', /code 3/);
  });

  test('a main process that cannot start at all: the box is error, never running or a 500', async () => {
    const res = await t.api('POST', P, { name: 'nosh', base: 'no-sh' });
    assert.equal(res.status, 201, await res.clone().text());
    const box = await untilStatus(t, `${P}/nosh`, 'error');
    assert.match(box.status_reason ?? '', /main process exited with code 127 \(command not found/);
    assert.match(box.status_reason ?? '', /exec \/bin\/sh failed: No such file or directory/);
  });

  test('an OOM-killed main process turns the box to error at once, says so, and sends box.oom', async () => {
    const sse = new SseClient(`${t.url}/v1/events`, t.token);
    try {
      await assertOomReported(sse, async () => {
        await create('hog', { base: 'hog', config: { ram_mb: 64 } });
        return untilStatus(t, `${P}/hog`, 'error');
      });
    } finally {
      sse.close();
    }
  });
});

test('at start: a labelled container without a box is removed, a box whose container vanished turns error', async () => {
  const engine = new MemoryEngine();
  const dataDir = tempDataDir();
  try {
    let core = await startMemoryCore({ engine, dataDir });
    const vanishing = (await (await core.api('POST', P, { name: 'vanishing-at-start' })).json()) as Box;
    const [c] = await engine.listContainers({ 'boxdesk.id': vanishing.id });
    const instance = c!.labels['boxdesk.instance']!;
    await core.core.close();
    const orphan = await engine.createContainer({
      name: 'orphan-at-start',
      image: 'boxdesk-test/busybox:1',
      command: ['sleep', '600'],
      hostname: 'orphan',
      env: {},
      labels: { 'boxdesk.id': 'box_orphanorphanorphan01', 'boxdesk.instance': instance },
      limits: { cpus: 1, ramMb: 64, pidsLimit: 64 },
      storageGb: null,
      graceSeconds: 1,
    });
    await engine.removeContainer(c!.id);
    core = await startMemoryCore({ engine, dataDir });
    assert.equal(await engine.inspectContainer(orphan), null, 'removed before the API answered');
    const box = await getBox(core, `${P}/vanishing-at-start`);
    assert.equal(box.status, 'error');
    assert.match(box.status_reason ?? '', /removed outside Boxdesk/);
    await core.close();
  } finally {
    await engine.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
