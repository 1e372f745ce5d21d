import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { PoolInfo } from '../../../../shared/schemas/system';
import { TEST_IMAGE, tempDataDir } from '../../../../test-support/core-process';
import { poll } from '../../../../test-support/poll';
import { startTestCore, type TestCore } from '../../../../test-support/test-core';
import { MemoryEngine } from '../../engine/memory/memory-engine';
import { LABELS } from '../container-spec';

// The warm pool on the in-memory engine: a real core (HTTP, SQLite) restarted on the same data dir
// and engine, for what the real engine makes slow to set up (another image, an image gone).

const engine = new MemoryEngine({ statsIntervalMs: 50 });
engine.addImage(TEST_IMAGE);
engine.addImage('boxdesk-test/other:1');
const dataDir = tempDataDir();
let t: TestCore;

after(async () => {
  await t?.close();
  await engine.dispose();
});

const start = (args: string[]) => startTestCore({ engine, dataDir, args: ['--default-warm', '2', ...args] });

async function pools(): Promise<PoolInfo[]> {
  return ((await (await t.api('GET', '/v1/system')).json()) as { pools: PoolInfo[] }).pools;
}

function filled(base: string, ready: number): Promise<unknown> {
  return poll(async () => (await pools()).find((p) => p.base === base && p.ready === ready), {
    ms: 10_000,
    everyMs: 20,
    what: `${base}'s pool at ${ready}`,
  });
}

async function poolContainers(base: string) {
  return (await engine.listContainers({ [LABELS.pool]: base })).filter((c) => c.state === 'paused');
}

test('at a restart, pool containers that still match are kept; those of an image the base no longer has go', async () => {
  t = await start([]);
  await t.api('POST', '/v1/bases', { name: 'alt', image: TEST_IMAGE });
  await t.api('PUT', '/v1/bases/alt', { warm: 1 });
  await filled('default', 2);
  await filled('alt', 1);
  const [kept] = await poolContainers('alt');
  const old = new Set((await poolContainers('default')).map((c) => c.id));
  await t.close();

  // The default base now starts from another image (as --default-base at start, or a rebuild).
  t = await start(['--default-base', 'boxdesk-test/other:1']);
  await filled('default', 2);
  const fresh = await poolContainers('default');
  assert.ok(
    fresh.every((c) => !old.has(c.id) && c.labels[LABELS.poolImage] === 'boxdesk-test/other:1'),
    'the old image pool went',
  );
  assert.equal((await engine.listContainers({ [LABELS.pool]: 'default' })).length, 2, 'nothing else is left');
  assert.deepEqual(
    (await poolContainers('alt')).map((c) => c.id),
    [kept!.id],
    'the pool container that matches is adopted',
  );
});

test('a base whose image the engine lost: the pool stays empty (backing off), leaves nothing, and creates go cold', async () => {
  await t.api('POST', '/v1/bases', { name: 'gone', image: 'boxdesk-test/other:1' });
  await t.api('PUT', '/v1/bases/default', { warm: 0 });
  await t.api('PUT', '/v1/bases/alt', { warm: 0 });
  await poll(async () => (await engine.listContainers({})).every((c) => !c.labels[LABELS.pool]) || null, {
    ms: 10_000,
    everyMs: 20,
    what: 'the pools to drain',
  });
  engine.addImage('boxdesk-test/lost:1');
  await t.api('DELETE', '/v1/bases/gone');
  await t.api('POST', '/v1/bases', { name: 'lost', image: 'boxdesk-test/lost:1' });
  await engine.removeImage('boxdesk-test/lost:1');
  const res = await t.api('PUT', '/v1/bases/lost', { warm: 2 });
  assert.equal(res.status, 200);
  // Give the refill a moment to fail, then look.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(
    (await pools()).find((p) => p.base === 'lost'),
    { base: 'lost', size: 2, ready: 0, hits: 0 },
  );
  assert.deepEqual(await engine.listContainers({ [LABELS.pool]: 'lost' }), [], 'no container left');
  const create = await t.api('POST', '/v1/projects/p/boxes', { name: 'x', base: 'lost' });
  assert.equal(create.status, 409, 'the cold path says the image is gone');
});
