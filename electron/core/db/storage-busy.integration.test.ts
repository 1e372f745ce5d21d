import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

test('while another process holds an exclusive lock: writes are 503 storage_busy with Retry-After, reads and /healthz answer, and nothing acknowledged is lost', async () => {
  const other = new Database(path.join(t.dataDir, 'boxdesk.db'));
  other.exec('BEGIN EXCLUSIVE');
  try {
    const write = await t.api('POST', '/v1/tokens', { name: 'during-lock', scopes: ['read'] });
    assert.equal(write.status, 503);
    assert.match(write.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.equal(Number(write.headers.get('retry-after')), 1);
    const problem = (await write.json()) as { code: string; detail: string };
    assert.equal(problem.code, 'storage_busy');
    assert.match(problem.detail, /locked by another process/);

    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    const read = await t.api('GET', '/v1/tokens');
    assert.equal(read.status, 200, 'a read (and its token bookkeeping) goes ahead in WAL mode');
    assert.equal(((await read.json()) as { items: unknown[] }).items.length, 1);
    assert.equal((await t.api('GET', '/v1/projects/p/boxes')).status, 200);
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  const created = await t.api('POST', '/v1/tokens', { name: 'after-lock', scopes: ['read'] });
  assert.equal(created.status, 201);
  const names = ((await (await t.api('GET', '/v1/tokens')).json()) as { items: { name: string }[] }).items.map(
    (i) => i.name,
  );
  assert.ok(names.includes('after-lock'), 'the acknowledged write is stored');
  assert.ok(!names.includes('during-lock'), 'the refused write left nothing behind');
});
