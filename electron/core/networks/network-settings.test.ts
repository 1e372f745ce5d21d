import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_NETWORK, parseAllowEntry } from '../../../shared/schemas/network';
import type { Box } from '../../../shared/schemas/box';
import { problem, startMemoryCore, type MemoryCore } from '../../../test-support/memory-core';
import { resolveAllowed } from './allow-entries';
import { DEFAULT_NETWORK_POOL, filterTable, networkPool } from './egress-rules';

describe('allow entries', () => {
  test('addresses, CIDRs and host names, each with an optional port', () => {
    assert.deepEqual(parseAllowEntry('10.0.0.0/8'), { kind: 'cidr', address: '10.0.0.0', prefix: 8, port: null });
    assert.deepEqual(parseAllowEntry('203.0.113.7:443'), {
      kind: 'cidr',
      address: '203.0.113.7',
      prefix: 32,
      port: 443,
    });
    assert.deepEqual(parseAllowEntry('10.1.0.0/16:5432'), {
      kind: 'cidr',
      address: '10.1.0.0',
      prefix: 16,
      port: 5432,
    });
    assert.deepEqual(parseAllowEntry('API.example.com:443'), { kind: 'host', host: 'api.example.com', port: 443 });
    assert.deepEqual(parseAllowEntry('*.Example.com'), { kind: 'domain', domain: 'example.com', port: null });
  });

  test('what is not a destination says why', () => {
    const bad: [string, RegExp][] = [
      ['10.0.0.0/33', /prefix length from 0 to 32/],
      ['10.0.0.0/', /prefix length/],
      ['300.1.1.1', /not an IPv4 address/],
      ['10.1.1', /not an IPv4 address/],
      ['10.0.0.1:0', /between 1 and 65535/],
      ['10.0.0.1:70000', /between 1 and 65535/],
      ['example.com:http', /not a number/],
      ['*.exa mple.com', /not a host name/],
      ['*.10.0.0.0/8', /not a host name/],
      ['exa mple.com', /not a host name/],
      ['-bad-.com', /not a host name/],
    ];
    for (const [entry, why] of bad) {
      const parsed = parseAllowEntry(entry);
      assert.ok('error' in parsed, `${entry} was taken: ${JSON.stringify(parsed)}`);
      assert.match(parsed.error, why, entry);
    }
  });
});

test('allow entries as the filter takes them: networks as given, host names resolved now to /32s', async () => {
  const { allowed, unresolved } = await resolveAllowed(['10.0.0.0/8:22', '203.0.113.7', 'localhost:8080']);
  assert.deepEqual(unresolved, []);
  assert.deepEqual(allowed.slice(0, 2), [
    { cidr: '10.0.0.0/8', port: 22 },
    { cidr: '203.0.113.7/32', port: null },
  ]);
  assert.ok(allowed.slice(2).some((a) => a.cidr === '127.0.0.1/32' && a.port === 8080));
});

describe("a box's filter table", () => {
  const hostAddresses = ['192.168.1.20', '172.17.0.1'];
  const pool = '10.210.0.0/16';
  const own = { subnet: '10.210.7.0/24', gateway: '10.210.7.1' };
  const REJECT = '-j BOXDESK-REFUSE';
  const ALLOW = '-j BOXDESK-ALLOW';

  test("open: the host (its own gateway too) closed, its project's peers open, every other project's network closed", () => {
    const lines = filterTable({ network: DEFAULT_NETWORK, allowed: [], hostAddresses, pool, own }).split('\n');
    const at = (line: string) => lines.indexOf(line);
    assert.ok(at(`-A OUTPUT -d 10.210.7.1/32 ${REJECT}`) > 0);
    assert.ok(at(`-A OUTPUT -d 192.168.1.20/32 ${REJECT}`) > 0);
    assert.ok(at(`-A OUTPUT -d 10.210.7.1/32 ${REJECT}`) < at(`-A OUTPUT -d 10.210.7.0/24 ${ALLOW}`));
    assert.ok(at(`-A OUTPUT -d 10.210.7.0/24 ${ALLOW}`) < at(`-A OUTPUT -d 10.210.0.0/16 ${REJECT}`));
    assert.equal(at(`-A OUTPUT ${REJECT}`), -1);
    assert.equal(lines.at(-3), `-A OUTPUT ${ALLOW}`, 'the rest is let through, and logged');
    const open = filterTable({ network: { ...DEFAULT_NETWORK, host: true }, allowed: [], hostAddresses, pool, own });
    assert.match(open, /-A OUTPUT -d 10\.210\.7\.1\/32 -j BOXDESK-ALLOW/);
    assert.match(open, /-A OUTPUT -d 172\.17\.0\.1\/32 -j BOXDESK-ALLOW/);
  });

  test('none: the resolver refused before loopback is let through, then everything else, the host too', () => {
    const network = { egress: 'none' as const, allow: [], host: true };
    const rules = filterTable({ network, allowed: [], hostAddresses, pool, own });
    const lines = rules.split('\n');
    const dns = lines.indexOf(`-A OUTPUT -d 127.0.0.11/32 ${REJECT}`);
    assert.ok(dns > 0 && dns < lines.indexOf('-A OUTPUT -o lo -j ACCEPT'));
    assert.doesNotMatch(rules, /10\.210\.7\.0\/24 -j BOXDESK-ALLOW|10\.210\.7\.1\/32 -j BOXDESK-ALLOW/);
    assert.equal(lines.at(-3), `-A OUTPUT ${REJECT}`);
    assert.equal(lines.at(-2), 'COMMIT');
    assert.ok(
      lines.includes('-A BOXDESK-REFUSE -p tcp -m conntrack --ctstate ESTABLISHED -j REJECT --reject-with tcp-reset'),
    );
  });

  test("a resolver on the gateway (Podman's): its port 53 open before the host is closed, and refused under none", () => {
    const lines = filterTable({
      network: DEFAULT_NETWORK,
      allowed: [],
      hostAddresses,
      pool,
      own,
      resolverOnGateway: true,
    }).split('\n');
    const udp = lines.indexOf('-A OUTPUT -d 10.210.7.1/32 -p udp --dport 53 -j ACCEPT');
    assert.ok(udp > 0 && lines.includes('-A OUTPUT -d 10.210.7.1/32 -p tcp --dport 53 -j ACCEPT'));
    assert.ok(udp < lines.indexOf(`-A OUTPUT -d 10.210.7.1/32 ${REJECT}`), 'the gateway itself stays closed after');
    const none = { egress: 'none' as const, allow: [], host: false };
    const closed = filterTable({ network: none, allowed: [], hostAddresses, pool, own, resolverOnGateway: true });
    assert.doesNotMatch(closed, /--dport 53 -j ACCEPT/);
    assert.match(closed, /-A OUTPUT -d 10\.210\.7\.1\/32 -j BOXDESK-REFUSE\n-A OUTPUT -o lo -j ACCEPT/);
  });

  test("allowlist: the host's addresses and other projects closed before any entry (0.0.0.0/0 does not open them), a port for TCP and UDP", () => {
    const rules = filterTable({
      network: { egress: 'allowlist', allow: [], host: false },
      allowed: [
        { cidr: '0.0.0.0/0', port: null },
        { cidr: '10.0.0.0/8', port: 443 },
      ],
      hostAddresses,
      pool,
      own,
    });
    const lines = rules.split('\n');
    const everything = lines.indexOf(`-A OUTPUT -d 0.0.0.0/0 ${ALLOW}`);
    assert.ok(lines.indexOf(`-A OUTPUT -d 172.17.0.1/32 ${REJECT}`) < everything);
    assert.ok(lines.indexOf(`-A OUTPUT -d 10.210.0.0/16 ${REJECT}`) < everything);
    assert.ok(lines.includes(`-A OUTPUT -d 10.0.0.0/8 -p tcp --dport 443 ${ALLOW}`));
    assert.ok(lines.includes(`-A OUTPUT -d 10.0.0.0/8 -p udp --dport 443 ${ALLOW}`));
    assert.doesNotMatch(rules, /-A OUTPUT -d 127\.0\.0\.11/, "the engine's resolver stays open: names must resolve");
  });

  test("the egress log: denials, new allowed connections and the resolver's answers are logged, each at a bounded rate", () => {
    const lines = filterTable({ network: DEFAULT_NETWORK, allowed: [], hostAddresses, pool, own }).split('\n');
    const logged = (prefix: string) => lines.filter((l) => l.includes(`--nflog-prefix ${prefix} `));
    assert.equal(logged('bd-deny').length, 1);
    assert.match(logged('bd-deny')[0]!, /^-A BOXDESK-REFUSE -m limit/);
    assert.ok(
      lines.indexOf(logged('bd-deny')[0]!) <
        lines.indexOf('-A BOXDESK-REFUSE -j REJECT --reject-with icmp-admin-prohibited'),
    );
    assert.match(logged('bd-allow')[0]!, /^-A BOXDESK-ALLOW -m conntrack --ctstate NEW -m limit/);
    assert.match(logged('bd-dns')[0]!, /^-A INPUT -s 127\.0\.0\.11\/32 -p udp -m limit/);
    assert.ok(lines.indexOf('-A OUTPUT -o lo -j ACCEPT') > 0, 'loopback is neither filtered nor logged');
  });

  test('BOXDESK_NETWORK_POOL: a range of /8 to /24, its host bits cleared; anything else says what it must be', () => {
    assert.equal(networkPool({}), DEFAULT_NETWORK_POOL);
    assert.equal(networkPool({ BOXDESK_NETWORK_POOL: '10.99.3.7/16' }), '10.99.0.0/16');
    for (const bad of ['10.99.0.0/25', '10.999.0.0/16', 'fd00::/64', 'lan'])
      assert.throws(() => networkPool({ BOXDESK_NETWORK_POOL: bad }), /must be an IPv4 range from \/8 to \/24/);
  });
});

describe('network in the API', () => {
  let t: MemoryCore;
  const P = '/v1/projects/net/boxes';
  before(async () => {
    t = await startMemoryCore();
  });
  after(() => t.close());

  test('a box has the default network; a bad allow entry is a 400 at its field and changes nothing', async () => {
    const created = await t.api('POST', P, { name: 'a' });
    assert.equal(created.status, 201);
    assert.deepEqual(((await created.json()) as Box).network, DEFAULT_NETWORK);
    const refused = await t.api('POST', P, {
      name: 'b',
      network: { egress: 'allowlist', allow: ['10.0.0.0/8', '10.0.0.0/33'] },
    });
    const body = await problem(refused, 400, 'invalid_body');
    assert.deepEqual(
      body.errors?.map((e) => e.path),
      ['body.network.allow.1'],
    );
    assert.equal((await t.api('GET', `${P}/b`)).status, 404);
    const update = await t.api('PUT', `${P}/a`, { network: { egress: 'allowlist', allow: ['1.2.3.4:99999'] } });
    await problem(update, 400, 'invalid_body');
    assert.deepEqual(((await (await t.api('GET', `${P}/a`)).json()) as Box).network, DEFAULT_NETWORK);
    await problem(await t.api('PUT', `${P}/a`, { network: { egress: 'closed' } }), 400, 'invalid_body');
  });

  test('an update changes the fields it gives; a fork of a box starts with its settings', async () => {
    const res = await t.api('PUT', `${P}/a`, { network: { egress: 'allowlist', allow: ['10.0.0.0/8'] } });
    assert.equal(res.status, 200);
    const updated = await t.api('PUT', `${P}/a`, { network: { host: true } });
    const expected = { egress: 'allowlist', allow: ['10.0.0.0/8'], host: true };
    assert.deepEqual(((await updated.json()) as Box).network, expected);
    const fork = await t.api('POST', P, { name: 'f', fork: 'a' });
    assert.equal(fork.status, 201, await fork.clone().text());
    assert.deepEqual(((await fork.json()) as Box).network, expected);
  });
});
