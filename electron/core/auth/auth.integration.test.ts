import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

const as = (token: string) => ({ authorization: `Bearer ${token}` });

async function createToken(body: unknown): Promise<{ id: string; token: string }> {
  const res = await t.api('POST', '/v1/tokens', body);
  assert.equal(res.status, 201);
  return (await res.json()) as { id: string; token: string };
}

test('first start writes the admin token to <data dir>/token with mode 0600, and stores only its hash', () => {
  const file = path.join(t.dataDir, 'token');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const db = new Database(path.join(t.dataDir, 'boxdesk.db'), { readonly: true });
  const rows = db.prepare('SELECT * FROM tokens').all();
  db.close();
  assert.equal(rows.length, 1);
  assert.ok(!JSON.stringify(rows).includes(t.token), 'the secret is not in the database');
});

test('missing, malformed and invalid tokens: 401', async () => {
  for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer bdk_nope' }] as Record<
    string,
    string
  >[]) {
    const res = await fetch(`${t.url}/v1/bases`, { headers });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
    assert.match(res.headers.get('www-authenticate') ?? '', /Bearer/);
  }
});

test('a token in the query string is ignored', async () => {
  for (const q of [`token=${t.token}`, `access_token=${t.token}`]) {
    const res = await fetch(`${t.url}/v1/bases?${q}`);
    assert.equal(res.status, 401);
  }
});

test('scopes: read cannot write, write cannot administer, exec implies read only', async () => {
  const read = await createToken({ name: 'reader', scopes: ['read'] });
  assert.equal((await fetch(`${t.url}/v1/bases`, { headers: as(read.token) })).status, 200);
  const create = await fetch(`${t.url}/v1/projects/p/boxes`, {
    method: 'POST',
    headers: { ...as(read.token), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x' }),
  });
  assert.equal(create.status, 403);
  assert.match(((await create.json()) as { detail: string }).detail, /write/);
  const write = await createToken({ name: 'writer', scopes: ['write'] });
  assert.equal((await fetch(`${t.url}/v1/tokens`, { headers: as(write.token) })).status, 403);
  const exec = await createToken({ name: 'exec', scopes: ['exec'] });
  assert.equal((await fetch(`${t.url}/v1/projects/p/boxes`, { headers: as(exec.token) })).status, 200);
  const del = await fetch(`${t.url}/v1/projects/p/boxes/x`, { method: 'DELETE', headers: as(exec.token) });
  assert.equal(del.status, 403);
});

test('a project-restricted token: 403 outside its project and on machine-wide routes', async () => {
  const scoped = await createToken({ name: 'alpha-admin', scopes: ['admin'], project: 'alpha' });
  assert.equal((await fetch(`${t.url}/v1/projects/alpha/boxes`, { headers: as(scoped.token) })).status, 200);
  const other = await fetch(`${t.url}/v1/projects/beta/boxes`, { headers: as(scoped.token) });
  assert.equal(other.status, 403);
  assert.match(((await other.json()) as { detail: string }).detail, /alpha/);
  const base = await fetch(`${t.url}/v1/bases`, {
    method: 'POST',
    headers: { ...as(scoped.token), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'b', image: 'boxdesk-test/busybox:1' }),
  });
  assert.equal(base.status, 403);
  const escalate = await fetch(`${t.url}/v1/tokens`, {
    method: 'POST',
    headers: { ...as(scoped.token), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'all', scopes: ['admin'] }),
  });
  assert.equal(escalate.status, 403);
});

test('tokens: create shows the secret once, list never does, delete revokes at once', async () => {
  const created = await createToken({ name: 'temp', scopes: ['read'] });
  assert.match(created.token, /^bdk_/);
  const list = (await (await t.api('GET', '/v1/tokens')).json()) as { items: Record<string, unknown>[] };
  const listed = list.items.find((i) => i.id === created.id);
  assert.ok(listed);
  assert.equal(listed.token, undefined);
  assert.ok(!JSON.stringify(list).includes(created.token));
  assert.equal((await fetch(`${t.url}/v1/bases`, { headers: as(created.token) })).status, 200);
  assert.equal((await t.api('DELETE', `/v1/tokens/${created.id}`)).status, 204);
  assert.equal((await fetch(`${t.url}/v1/bases`, { headers: as(created.token) })).status, 401);
  assert.equal((await t.api('DELETE', `/v1/tokens/${created.id}`)).status, 404);
});

test('bad token bodies: 400 and nothing created', async () => {
  const before = ((await (await t.api('GET', '/v1/tokens')).json()) as { items: unknown[] }).items.length;
  for (const body of [
    { name: 'x', scopes: ['root'] },
    { name: 'x', scopes: [] },
    { scopes: ['read'] },
    { name: 'x', scopes: ['read'], project: 'Not A Label' },
  ]) {
    assert.equal((await t.api('POST', '/v1/tokens', body)).status, 400, JSON.stringify(body));
  }
  const after = ((await (await t.api('GET', '/v1/tokens')).json()) as { items: unknown[] }).items.length;
  assert.equal(after, before);
});

test('past its rate a token gets 429 with Retry-After; other tokens are unaffected', async () => {
  const limited = await startTestCore({ args: ['--rate-limit', '1'] });
  try {
    const other = (await (await limited.api('POST', '/v1/tokens', { name: 'other', scopes: ['read'] })).json()) as {
      token: string;
    };
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await limited.api('GET', '/v1/bases')).status);
    assert.deepEqual(statuses, Array(9).fill(200), 'a burst of 10x the rate passes');
    const refused = await limited.api('GET', '/v1/bases');
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(((await refused.json()) as { code: string }).code, 'rate_limited');
    const unaffected = await fetch(`${limited.url}/v1/bases`, { headers: as(other.token) });
    assert.equal(unaffected.status, 200);
  } finally {
    await limited.close();
  }
});

test('the list marks the token asking as current; after revoking it, --new-admin-token at the next start is the way back', async () => {
  const own = await createToken({ name: 'own-admin', scopes: ['admin'] });
  const list = (await (await fetch(`${t.url}/v1/tokens`, { headers: as(own.token) })).json()) as {
    items: { id: string; current: boolean }[];
  };
  assert.deepEqual(
    list.items.filter((i) => i.current).map((i) => i.id),
    [own.id],
  );

  // A core whose only admin token was revoked: nobody gets in, until its owner restarts it with the flag.
  const dataDir = fs.mkdtempSync(path.join(t.dataDir, 'locked-'));
  let locked = await startTestCore({ dataDir });
  const first = locked.token;
  const ids = (await (await locked.api('GET', '/v1/tokens')).json()) as { items: { id: string }[] };
  assert.equal((await locked.api('DELETE', `/v1/tokens/${ids.items[0]!.id}`)).status, 204);
  assert.equal((await locked.api('GET', '/v1/tokens')).status, 401, 'locked out');
  await locked.close();
  locked = await startTestCore({ dataDir, args: ['--new-admin-token'] });
  try {
    assert.notEqual(locked.token, first, 'a new secret in <data dir>/token');
    assert.equal(fs.statSync(path.join(dataDir, 'token')).mode & 0o777, 0o600);
    const res = await locked.api('GET', '/v1/tokens');
    assert.equal(res.status, 200);
    const { items } = (await res.json()) as { items: { name: string; scopes: string[] }[] };
    assert.deepEqual(
      items.map((i) => i.scopes),
      [['admin']],
    );
    assert.match(items[0]!.name, /--new-admin-token/);
  } finally {
    await locked.close();
  }
});
