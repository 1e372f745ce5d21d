import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BoxdeskClient, type FetchLike } from '../../../shared/client';
import { ApiError } from '../../../shared/errors';
import type { Box } from '../../../shared/schemas/box';
import type { BoxStats } from '../../../shared/schemas/stats';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
let client: BoxdeskClient;
const project = 'stats';

before(async () => {
  t = await startTestCore();
  client = new BoxdeskClient({ baseUrl: t.url, token: t.token, fetch: fetch as unknown as FetchLike });
  await client.createBox(project, { name: 'meter', config: { ram_mb: 256, pids_limit: 100 } });
});
after(async () => {
  const { items } = await client.listBoxes(project);
  for (const b of items) await client.deleteBox(project, b.name);
  await t.close();
});

function assertSample(s: BoxStats): void {
  assert.deepEqual(
    Object.keys(s).sort(),
    [
      'at',
      'block_read_bytes',
      'block_write_bytes',
      'cpu_percent',
      'memory_bytes',
      'memory_limit_bytes',
      'net_rx_bytes',
      'net_tx_bytes',
      'pids',
    ].sort(),
  );
  assert.equal(s.memory_limit_bytes, 256 * 1024 * 1024);
  assert.ok(s.pids >= 1 && s.pids <= 100, `pids ${s.pids}`);
  assert.ok(s.memory_bytes > 0);
  assert.match(s.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
}

test('GET stats answers one sample of the running box', async () => {
  assertSample(await client.boxStats(project, 'meter'));
});

test(
  '?stream=1 sends one JSON line a second as application/x-ndjson, and ends when the box stops',
  { timeout: 60_000 },
  async () => {
    const res = await client.boxStatsStream(project, 'meter');
    assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (text.split('\n').length < 3) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the stream went on');
      text += decoder.decode(value, { stream: true });
    }
    const [first, second] = text
      .split('\n')
      .slice(0, 2)
      .map((l) => JSON.parse(l) as BoxStats);
    assertSample(first!);
    assertSample(second!);
    assert.notEqual(first!.at, second!.at);
    await client.stopBox(project, 'meter');
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  },
);

test('stats of a box that is not running: 409 naming resume', async () => {
  const box: Box = await client.getBox(project, 'meter');
  assert.equal(box.status, 'stopped');
  await assert.rejects(
    client.boxStats(project, 'meter'),
    (err: unknown) => err instanceof ApiError && err.status === 409 && /resume/.test(err.hint ?? ''),
  );
  await assert.rejects(
    client.boxStatsStream(project, 'meter'),
    (err: unknown) => err instanceof ApiError && err.status === 409,
  );
});

test('bad stream values: 400', async () => {
  const res = await t.api('GET', `/v1/projects/${project}/boxes/meter/stats?stream=maybe`);
  assert.equal(res.status, 400);
});
