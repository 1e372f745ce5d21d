import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_NETWORK } from '../../../shared/schemas/network';
import { proxyPermits, usesProxy, type ProxyDestination } from './egress-policy';

const base: ProxyDestination = {
  network: DEFAULT_NETWORK,
  host: 'api.example.test',
  address: '203.0.113.7',
  port: 443,
  hostAddresses: ['192.168.1.5', '172.17.0.1'],
  pool: '10.210.0.0/16',
};

test('an open box reaches the outside through the proxy, never loopback, the host or the range', () => {
  assert.equal(proxyPermits(base), true);
  assert.equal(proxyPermits({ ...base, address: '127.0.0.1' }), false);
  assert.equal(proxyPermits({ ...base, address: '10.210.3.4' }), false);
  assert.equal(proxyPermits({ ...base, address: '172.17.0.1' }), false);
  assert.equal(proxyPermits({ ...base, address: '172.17.0.1', network: { ...DEFAULT_NETWORK, host: true } }), true);
  assert.equal(proxyPermits({ ...base, network: { ...DEFAULT_NETWORK, egress: 'none' } }), false);
});

test("an allow list's names match the name asked for, its CIDRs the address, with their ports", () => {
  const allow = (entries: string[]) => ({ egress: 'allowlist' as const, allow: entries, host: false });
  assert.equal(proxyPermits({ ...base, network: allow(['api.example.test']) }), true);
  assert.equal(proxyPermits({ ...base, host: 'other.example.test', network: allow(['api.example.test']) }), false);
  assert.equal(proxyPermits({ ...base, network: allow(['api.example.test:80']) }), false);
  assert.equal(proxyPermits({ ...base, network: allow(['203.0.113.0/24:443']) }), true);
  assert.equal(proxyPermits({ ...base, network: allow(['198.51.100.0/24']) }), false);
  assert.equal(proxyPermits({ ...base, network: allow(['*.example.test:443']) }), true);
  assert.equal(proxyPermits({ ...base, host: 'example.test', network: allow(['*.example.test']) }), false);
  assert.equal(proxyPermits({ ...base, host: 'evilexample.test', network: allow(['*.example.test']) }), false);
});

test('boxes with secrets or an allow list use the proxy, unless nothing leaves them', () => {
  assert.equal(usesProxy({ network: DEFAULT_NETWORK, secrets: [] }), false);
  assert.equal(usesProxy({ network: DEFAULT_NETWORK, secrets: ['openai'] }), true);
  assert.equal(usesProxy({ network: { egress: 'allowlist', allow: [], host: false }, secrets: [] }), true);
  assert.equal(usesProxy({ network: { egress: 'none', allow: [], host: false }, secrets: ['openai'] }), false);
});
