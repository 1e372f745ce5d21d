import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../shared/errors';
import { classifyListeners, explainListener } from './box-connector';
import * as hosts from './published-hosts';
import { SessionCookies, splitCookies } from './session-cookie';

test('a preview host names its box and project, also when names hold "--"', () => {
  assert.equal(hosts.previewUrl('web', 'default', 7421), 'http://web--default.localhost:7421');
  assert.equal(hosts.hostnameOf('Web--Default.LOCALHOST:7421'), 'web--default.localhost');
  assert.equal(hosts.hostnameOf('myapp.test.'), 'myapp.test');
  assert.equal(hosts.hostnameOf('[::1]:7421'), '[::1]');
  assert.deepEqual(hosts.previewCandidates('web--default.localhost'), [{ name: 'web', project: 'default' }]);
  assert.deepEqual(hosts.previewCandidates('a--b--c.localhost'), [
    { name: 'a', project: 'b--c' },
    { name: 'a--b', project: 'c' },
  ]);
  assert.deepEqual(hosts.previewCandidates('web.localhost'), []);
  assert.deepEqual(hosts.previewCandidates('x.web--default.localhost'), []);
  assert.deepEqual(hosts.previewCandidates('web--default.example.com'), []);
  assert.equal(hosts.isPreviewHostname('a--b.localhost'), true);
  assert.equal(hosts.isPreviewHostname('app.localhost'), false);
});

test("a box's other published port has a host of its own, which is a preview host too (it may never call the API)", () => {
  assert.deepEqual(hosts.portHostname('9090.web--p.localhost'), { port: 9090, hostname: 'web--p.localhost' });
  assert.equal(hosts.portHostname('web--p.localhost'), null);
  assert.equal(hosts.portHostname('a.web--p.localhost'), null);
  assert.equal(hosts.isPreviewHostname('9090.web--p.localhost'), true);
  assert.throws(() => hosts.checkDomains(['9090.web--p.localhost']), /has the form of a box preview host/);
});

test('domains: hostnames only, lower-cased and de-duplicated; never an IP, localhost or a box preview name', () => {
  assert.deepEqual(hosts.checkDomains(['MyApp.Test', 'myapp.test.', 'app.localhost']), ['myapp.test', 'app.localhost']);
  for (const bad of ['10.0.0.1', 'localhost', 'web--default.localhost', 'host.123']) {
    assert.throws(
      () => hosts.checkDomains(['ok.test', bad]),
      (err: ApiError) => err.code === 'invalid_body' && err.errors?.[0]?.path === 'body.domains.1',
      bad,
    );
  }
});

test('a session cookie is bound to its host and key, and cannot be forged or altered', () => {
  const sessions = new SessionCookies(Buffer.alloc(32, 1));
  const value = sessions.issue('tok_abc', 'web--p.localhost');
  assert.equal(sessions.verify(value, 'web--p.localhost'), 'tok_abc');
  assert.equal(sessions.verify(value, 'other--p.localhost'), null);
  assert.equal(sessions.verify(value.replace('tok_abc', 'tok_abd'), 'web--p.localhost'), null);
  assert.equal(new SessionCookies(Buffer.alloc(32, 2)).verify(value, 'web--p.localhost'), null);
  assert.equal(sessions.verify('garbage', 'web--p.localhost'), null);
  const old = value.split('.');
  old[2] = String(Number(old[2]) - 8 * 24 * 3600);
  assert.equal(sessions.verify(old.join('.'), 'web--p.localhost'), null, 'expired (and re-signed would be needed)');
});

test('our cookie is taken out of a Cookie header, the rest kept', () => {
  assert.deepEqual(splitCookies('a=1; boxdesk_preview=v1.x; b=2'), { session: 'v1.x', rest: 'a=1; b=2' });
  assert.deepEqual(splitCookies('boxdesk_preview=v1.x'), { session: 'v1.x', rest: null });
  assert.deepEqual(splitCookies('a=1'), { session: null, rest: 'a=1' });
  assert.deepEqual(splitCookies(undefined), { session: null, rest: null });
});

test('listeners in /proc/net/tcp: on all addresses, only on loopback, or none', () => {
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  const v4 = (addr: string, port: number, st = '0A') =>
    `   0: ${addr}:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 ${st} 00000000:00000000 00:00000000 00000000     0        0 1 1\n`;
  assert.equal(classifyListeners(header + v4('0100007F', 5173), 5173), 'loopback-only');
  assert.equal(classifyListeners(header + v4('0100007F', 5173) + v4('00000000', 5173), 5173), 'any');
  assert.equal(classifyListeners(header + v4('00000000', 80), 5173), 'none');
  assert.equal(
    classifyListeners(header + v4('0100007F', 5173, '01'), 5173),
    'none',
    'an established connection is not a listener',
  );
  assert.equal(classifyListeners(header + v4('00000000000000000000000001000000', 5173), 5173), 'loopback-only', '::1');
});

test('the 502 page says exactly what to change', () => {
  assert.match(
    explainListener({ kind: 'loopback-only', address: '127.0.0.1', relay: false }, 5173),
    /listens on 127\.0\.0\.1:5173 inside the box.*no nc or socat.*--host 0\.0\.0\.0/,
  );
  assert.match(
    explainListener({ kind: 'none', relay: true }, 5173),
    /nothing listens on port 5173 in the box; start your server there on 0\.0\.0\.0:5173/,
  );
});
