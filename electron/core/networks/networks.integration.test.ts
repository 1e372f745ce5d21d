import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { boxCli } from '../../../test-support/cli-runner';
import { startOutsideHost, type OutsideHost } from '../../../test-support/outside-host';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

/*
 * The network boundary on the real engine, with one core and three boxes: alpha/web (a web
 * server), alpha/client (whose settings change) and beta/other. The "outside" is a network
 * namespace behind a veth pair (test-support/outside-host.ts); the host answers HTTP on all its
 * addresses, so a refused connection to its gateway is the rule, not an empty port.
 */

let t: TestCore;
let outside: OutsideHost;
let hostServer: http.Server;
const suffix = randomBytes(3).toString('hex');
const alpha = `/v1/projects/alpha${suffix}/boxes`;
const beta = `/v1/projects/beta${suffix}/boxes`;
const box = boxCli(() => t, { project: `alpha${suffix}` });

interface Run {
  exit_code: number;
  stdout: string;
  stderr: string;
}

async function sh(boxPath: string, script: string): Promise<Run> {
  const res = await t.api('POST', `${boxPath}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Run;
}

/**
 * The last line of what HOST:PORT answers to GET / (the page), or nc's complaint. The base's static
 * busybox cannot resolve names itself (wget and nc crash in getaddrinfo): nslookup asks the engine's
 * resolver, as any program in the box would.
 */
async function get(boxPath: string, host: string, port = 80, wait = 3): Promise<string> {
  const address = /[a-z]/.test(host)
    ? `$(nslookup ${host} 2>/dev/null | awk '/^Address: / {print $2}' | tail -n1)`
    : host;
  const script = `a=${address}; [ -n "$a" ] || { echo "bad address ${host}"; exit; }; printf 'GET / HTTP/1.0\r\n\r\n' | nc -w ${wait} $a ${port} 2>&1 | tail -n1`;
  return (await sh(boxPath, script)).stdout.trim();
}

async function setNetwork(boxPath: string, network: Record<string, unknown>): Promise<Box> {
  const res = await t.api('PUT', boxPath, { network });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as Box;
}

/** What the packet filter's refusal looks like to a client (never a timeout, nor a refused port). */
const REFUSED = /No route to host/;

/** The outside host is a network namespace: making one needs root (the core itself never does). */
const skip = process.getuid?.() === 0 ? false : 'standing up the outside host (ip netns) needs root';

before(async () => {
  if (skip) return;
  outside = await startOutsideHost();
  hostServer = http.createServer((_req, res) => res.end('the host'));
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
  t = await startTestCore();
  const created = await Promise.all([
    t.api('POST', alpha, { name: 'web' }),
    t.api('POST', alpha, { name: 'client', network: { egress: 'open', host: false } }),
    t.api('POST', beta, { name: 'other' }),
  ]);
  for (const res of created) assert.equal(res.status, 201, await res.text());
  await sh(`${alpha}/web`, 'mkdir -p /tmp/w && echo web > /tmp/w/index.html && httpd -p 8080 -h /tmp/w');
});

after(async () => {
  for (const path of [`${alpha}/web`, `${alpha}/client`, `${beta}/other`]) await t?.api('DELETE', path);
  await t?.close();
  hostServer?.close();
  outside?.close();
});

test("a project's boxes reach each other by name; another project's box cannot reach them", { skip }, async () => {
  assert.equal(await get(`${alpha}/client`, 'web', 8080), 'web');
  const address = (await sh(`${alpha}/web`, 'hostname -i')).stdout.trim();
  assert.match(address, /^\d+\.\d+\.\d+\.\d+$/);
  assert.equal(await get(`${alpha}/client`, address, 8080), 'web');
  assert.match(await get(`${beta}/other`, address, 8080, 1), /timed out/);
});

test(
  "the host's addresses are closed unless network.host, and the box cannot change its own network",
  { skip },
  async () => {
    const gateway = (await sh(`${alpha}/client`, "ip route | awk '/^default/ {print $3}'")).stdout.trim();
    const port = (hostServer.address() as AddressInfo).port;
    assert.match(await get(`${alpha}/client`, gateway, port), REFUSED);
    // Another project's bridge is the host too, made after or before this box.
    const betaGateway = (await sh(`${beta}/other`, "ip route | awk '/^default/ {print $3}'")).stdout.trim();
    assert.match(await get(`${alpha}/client`, betaGateway, port), REFUSED);
    assert.deepEqual((await setNetwork(`${alpha}/client`, { host: true })).network, {
      egress: 'open',
      allow: [],
      host: true,
    });
    assert.equal(await get(`${alpha}/client`, gateway, port), 'the host');
    await setNetwork(`${alpha}/client`, { host: false });
    assert.match(await get(`${alpha}/client`, gateway, port), REFUSED);
    // No NET_ADMIN in the box: it can neither reroute nor (so) touch its packet filter.
    assert.match((await sh(`${alpha}/client`, 'ip route del default 2>&1')).stdout, /not permitted/);
  },
);

test(
  'egress none blocks TCP, UDP and DNS at once, a connection the box already has open too, and holds across a restart',
  { skip },
  async () => {
    const [a] = outside.addresses;
    const client = `${alpha}/client`;
    assert.equal(await get(client, a), `outside ${a}`);
    assert.match(
      (await sh(client, `nslookup example.test ${a}`)).stdout,
      new RegExp(`Address: ${a.replace(/\./g, '\\.')}`),
    );
    assert.equal((await sh(client, 'nslookup web')).exit_code, 0);
    // A connection the box holds open (a request whose headers never end), made before the change.
    await sh(
      client,
      // Nothing of it holds the exec's output: the agent ends an exec once every holder has closed it.
      `(printf 'GET / HTTP/1.1\\r\\n'; while true; do printf 'X-Ping: 1\\r\\n'; sleep 0.2; done) 2>/dev/null | nc ${a} 80 >/dev/null 2>&1 & echo $! > /tmp/held.pid`,
    );
    const held =
      'for i in $(seq 1 15); do kill -0 $(cat /tmp/held.pid) 2>/dev/null || { echo cut; exit; }; sleep 0.2; done; echo open';
    assert.equal((await sh(client, 'sleep 0.5; kill -0 $(cat /tmp/held.pid) && echo open')).stdout.trim(), 'open');

    assert.equal((await setNetwork(client, { egress: 'none' })).network.egress, 'none');
    assert.equal((await sh(client, held)).stdout.trim(), 'cut', 'its next packet meets the rules');
    assert.match(await get(client, a), REFUSED);
    assert.notEqual((await sh(client, `nslookup example.test ${a}`)).exit_code, 0, 'UDP to the outside');
    assert.notEqual((await sh(client, 'nslookup web')).exit_code, 0, "the engine's resolver");
    assert.match(await get(client, 'web', 8080), /bad address/);

    assert.equal((await t.api('POST', `${client}/stop`)).status, 200);
    assert.equal((await t.api('POST', `${client}/resume`)).status, 200);
    assert.match(await get(client, a), REFUSED);
  },
);

test(
  'an allow list lets exactly its entries through: a CIDR, then (from the CLI) an address with a port',
  { skip },
  async () => {
    const [a, b] = outside.addresses;
    const client = `${alpha}/client`;
    await setNetwork(client, { egress: 'allowlist', allow: [`${a}/32`] });
    assert.equal(await get(client, a), `outside ${a}`);
    assert.match((await sh(client, `nslookup example.test ${a}`)).stdout, /Address: 10\.213\./);
    assert.match(await get(client, b), REFUSED);
    const cli = await box('update', 'client', '--allow', `${b}:80`);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, new RegExp(`network: +allowlist: ${b.replace(/\./g, '\\.')}:80; host closed`));
    assert.equal(await get(client, b), `outside ${b}`);
    assert.match(await get(client, a), REFUSED);
    const got = (await (await t.api('GET', client)).json()) as Box;
    assert.deepEqual(got.network, { egress: 'allowlist', allow: [`${b}:80`], host: false });
    const bad = await box('update', 'client', '--allow', '10.0.0.0/40');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /prefix length from 0 to 32/);
  },
);
