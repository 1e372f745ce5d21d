import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactHeaders, redactUrl } from './log-redaction';

test('tokens in a query string are redacted, other parameters kept', () => {
  assert.equal(redactUrl('/x?token=bdk_SECRET&a=1'), '/x?token=[redacted]&a=1');
  assert.equal(redactUrl('/x?a=1&access_token=bdk_SECRET#f'), '/x?a=1&access_token=[redacted]#f');
  assert.equal(redactUrl('/x?TOKEN=bdk_SECRET'), '/x?TOKEN=[redacted]');
  assert.equal(redactUrl('/x?tokens=keep&mytoken=keep'), '/x?tokens=keep&mytoken=keep');
});

test("a build argument's value is redacted, its name kept", () => {
  assert.equal(
    redactUrl('/v1/bases/b/build?build_arg=NPM_TOKEN=s3cret&build_arg=X%3Dv&target=t'),
    '/v1/bases/b/build?build_arg=NPM_TOKEN=[redacted]&build_arg=X%3D[redacted]&target=t',
  );
  assert.equal(redactUrl('/v1/bases/b/build?build_arg=ONLY_NAME&a=1'), '/v1/bases/b/build?build_arg=ONLY_NAME&a=1');
});

test('Authorization, cookies and bearer subprotocols are redacted', () => {
  const out = redactHeaders({
    authorization: 'Bearer bdk_SECRET',
    cookie: 'boxdesk_token=bdk_SECRET',
    'sec-websocket-protocol': 'boxdesk.v1, bearer.bdk_SECRET',
    host: 'h',
  });
  assert.ok(!JSON.stringify(out).includes('bdk_SECRET'));
  assert.equal(out['sec-websocket-protocol'], 'boxdesk.v1, bearer.[redacted]');
  assert.equal(out.host, 'h');
});
