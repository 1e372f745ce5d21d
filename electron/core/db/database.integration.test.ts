import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { tempDataDir } from '../../../test-support/core-process';
import { MIGRATIONS } from './migrations';
import { BUSY_TIMEOUT_MS, getMeta, openDatabase, setMeta } from './database';

test('the store is WAL with synchronous=FULL and a short busy timeout', (t) => {
  const dir = tempDataDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
  assert.equal(db.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS);
  assert.ok(BUSY_TIMEOUT_MS <= 100, 'a lock held elsewhere must not stall the event loop for long');
  db.close();
});

test('migrations apply once, in order, and survive a reopen', (t) => {
  const dir = tempDataDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(dir);
  const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
  assert.deepEqual(
    versions,
    MIGRATIONS.map((_, i) => i + 1),
  );
  setMeta(db, 'k', 'v');
  db.close();
  const again = openDatabase(dir);
  assert.equal(again.prepare('SELECT count(*) FROM schema_migrations').pluck().get(), MIGRATIONS.length);
  assert.equal(getMeta(again, 'k'), 'v');
  again.close();
});
