import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SIGN_IN_TTL_MS, SignInLinks, takeSignInCode } from './sign-in-links';

const web = { project: 'p', name: 'web', url: 'http://web--p.localhost:7421' };

test('a code works once, at the host of the target it was made for, for the token that made it', () => {
  const links = new SignInLinks();
  const { code, expiresAt } = links.mint('tok_a', web);
  assert.match(code, /^[A-Za-z0-9_-]{32}$/);
  assert.ok(expiresAt.getTime() > Date.now());
  assert.notEqual(links.mint('tok_a', web).code, code, 'every code is new');
  assert.deepEqual(links.redeem(code, web, 'web--p.localhost:7421'), { tokenId: 'tok_a' });
  assert.match(String((links.redeem(code, web, 'web--p.localhost:7421') as { refused: string }).refused), /used/);
});

test('a code is refused for another box, another project or another host, and is spent by the try', () => {
  const links = new SignInLinks();
  for (const [target, host] of [
    [{ project: 'p', name: 'api' }, 'web--p.localhost:7421'],
    [{ project: 'q', name: 'web' }, 'web--p.localhost:7421'],
    [web, 'web.test:7421'],
  ] as const) {
    const { code } = links.mint('tok_a', web);
    assert.match((links.redeem(code, target, host) as { refused: string }).refused, /another URL/);
    assert.ok('refused' in links.redeem(code, web, 'web--p.localhost'), 'a refused code is gone');
  }
  assert.ok('refused' in links.redeem('made-up', web, 'web--p.localhost'));
});

test('a code expires SIGN_IN_TTL_MS after it was made', () => {
  let now = 1_000_000;
  const links = new SignInLinks(() => now);
  const late = links.mint('tok_a', web);
  const inTime = links.mint('tok_a', web);
  assert.equal(late.expiresAt.getTime(), now + SIGN_IN_TTL_MS);
  now += SIGN_IN_TTL_MS - 1;
  assert.deepEqual(links.redeem(inTime.code, web, 'web--p.localhost'), { tokenId: 'tok_a' });
  now += 1;
  assert.match((links.redeem(late.code, web, 'web--p.localhost') as { refused: string }).refused, /expired/);
});

test('takeSignInCode takes every boxdesk_code off the URL and leaves the rest byte for byte', () => {
  assert.deepEqual(takeSignInCode('/a?x=%7e&boxdesk_code=abc&y=1&boxdesk_code=def'), {
    code: 'abc',
    url: '/a?x=%7e&y=1',
  });
  assert.deepEqual(takeSignInCode('/?boxdesk_code=abc'), { code: 'abc', url: '/' });
  assert.deepEqual(takeSignInCode('/?code=abc'), { code: undefined, url: '/?code=abc' });
  assert.deepEqual(takeSignInCode('/plain'), { code: undefined, url: '/plain' });
});
