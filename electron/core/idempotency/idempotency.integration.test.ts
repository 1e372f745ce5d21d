import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { tempDataDir } from '../../../test-support/core-process';
import { containersOfBox } from '../../../test-support/docker';
import { startTestCore, type TestCore } from '../../../test-support/test-core';
import { openCoreDatabase } from '../modules';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from './store';

describe('Idempotency-Key on box create', () => {
  let t: TestCore;
  const P = '/v1/projects/idem/boxes';
  before(async () => {
    t = await startTestCore();
  });
  after(async () => {
    const { items } = (await (await t.api('GET', P)).json()) as { items: Box[] };
    for (const b of items) await t.api('DELETE', `${P}/${b.name}`);
    await t.close();
  });

  test('a retry with the same key and body answers the same 201 and creates nothing more', async () => {
    const first = await t.api('POST', P, { name: 'once', tags: { a: '1', b: '2' } }, { 'idempotency-key': 'k-1' });
    assert.equal(first.status, 201);
    const box = (await first.json()) as Box;
    // Same body, keys in another order: the same request.
    const again = await t.api('POST', P, { tags: { b: '2', a: '1' }, name: 'once' }, { 'idempotency-key': 'k-1' });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), box);
    assert.equal((await containersOfBox(box.id)).length, 1);
    const { items } = (await (await t.api('GET', P)).json()) as { items: Box[] };
    assert.deepEqual(
      items.map((b) => b.name),
      ['once'],
    );
  });

  test('the same key with another body: 409, nothing created', async () => {
    const res = await t.api('POST', P, { name: 'other' }, { 'idempotency-key': 'k-1' });
    assert.equal(res.status, 409);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = (await res.json()) as { code: string; detail: string };
    assert.equal(problem.code, 'conflict');
    assert.match(problem.detail, /Idempotency-Key "k-1".*different request/);
    assert.equal((await t.api('GET', `${P}/other`)).status, 404);
  });

  test('keys belong to a token; a failure is not remembered; without a key a repeat is a plain 409', async () => {
    const other = (await (await t.api('POST', '/v1/tokens', { name: 'w', scopes: ['write'] })).json()) as {
      token: string;
    };
    const theirs = await t.api(
      'POST',
      P,
      { name: 'once' },
      { 'idempotency-key': 'k-1', authorization: `Bearer ${other.token}` },
    );
    assert.equal(theirs.status, 409, 'another token does not see k-1: it runs, and the name is taken');
    assert.equal(((await theirs.json()) as { code: string }).code, 'already_exists');
    const failed = await t.api('POST', P, { name: 'nobase', base: 'missing' }, { 'idempotency-key': 'k-2' });
    assert.equal(failed.status, 404);
    assert.equal(
      (await t.api('POST', P, { name: 'nobase', base: 'missing' }, { 'idempotency-key': 'k-2' })).status,
      404,
      'the retry ran again',
    );
    assert.equal((await t.api('POST', P, { name: 'once' })).status, 409);
  });

  test('a malformed key: 400 naming the header', async () => {
    const res = await t.api('POST', P, { name: 'x' }, { 'idempotency-key': 'a'.repeat(256) });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { errors: { path: string }[] }).errors[0]?.path, 'header.idempotency-key');
  });
});

describe('IdempotencyStore', () => {
  test('keeps answers 24 h; a pending claim of a dead process is taken over; an own pending claim is in progress', (t) => {
    const dir = tempDataDir();
    const db = openCoreDatabase(dir);
    t.after(() => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    let now = 1_000_000;
    const store = new IdempotencyStore(db, () => now);
    assert.deepEqual(store.claim('tok', 'k', 'h1'), { kind: 'claimed' });
    assert.deepEqual(store.claim('tok', 'k', 'h1'), { kind: 'in_progress' });
    assert.deepEqual(store.claim('tok', 'k', 'h2'), { kind: 'mismatch' });
    store.complete('tok', 'k', 201, { id: 'x' });
    now += IDEMPOTENCY_TTL_MS - 1;
    assert.deepEqual(store.claim('tok', 'k', 'h1'), { kind: 'replay', status: 201, body: { id: 'x' } });
    now += 1;
    assert.deepEqual(store.claim('tok', 'k', 'h2'), { kind: 'claimed' }, 'after 24 h the key is free again');
    const restarted = new IdempotencyStore(db, () => now);
    assert.deepEqual(
      restarted.claim('tok', 'k', 'h2'),
      { kind: 'claimed' },
      'the claim of a process that died is taken over',
    );
    store.complete('tok', 'k', 201, { id: 'stale' });
    assert.deepEqual(
      restarted.claim('tok', 'k', 'h2'),
      { kind: 'in_progress' },
      'the old owner cannot complete it any more',
    );
  });
});
