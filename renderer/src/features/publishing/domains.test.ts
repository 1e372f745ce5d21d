import assert from 'node:assert/strict';
import { test } from 'node:test';
import { domainError, domainsError, publishFieldOf } from './domains';

test('hostnames pass; what the API refuses is flagged with what to do', () => {
  assert.equal(domainError('myapp.test'), null);
  assert.equal(domainError('MyApp.localhost'), null);
  assert.match(domainError('not a host') ?? '', /not a hostname/);
  assert.match(domainError('-bad.test') ?? '', /not a hostname/);
  assert.match(domainError('127.0.0.1') ?? '', /IP address/);
  assert.match(domainError('localhost') ?? '', /API’s own host/);
  assert.match(domainError('web--default.localhost') ?? '', /box URL/);
  assert.equal(domainsError(['a.test', 'b.test']), null);
  assert.match(domainsError(['a.test', 'x_y']) ?? '', /x_y/);
});

test("a problem's errors[].path finds its field", () => {
  assert.equal(publishFieldOf('domains.3'), 'domains');
  assert.equal(publishFieldOf('port'), 'port');
  assert.equal(publishFieldOf('auth'), 'auth');
  assert.equal(publishFieldOf('other'), null);
});
