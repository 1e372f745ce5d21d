import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import type { SystemInfo } from '../../../shared/schemas/system';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { poll } from '../../../test-support/poll';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

/*
 * A box's rules are there before anything of the box runs: its main process is held by the box
 * agent until the core has set them (with one core, no root needed). Two ways in: a cold create,
 * whose base's /bin/sh (it starts every box's main process) first tries the host's web server;
 * and a warm-pool container, made before its project was known, claimed by a create.
 */

let t: TestCore;
let hostServer: http.Server;
const suffix = randomBytes(3).toString('hex');
const project = `/v1/projects/first${suffix}/boxes`;
const probeImage = `boxdesk-nettest-probe-${suffix}:1`;
const [probeBase, warmBase] = [`probe${suffix}`, `warm${suffix}`];

async function sh(name: string, script: string): Promise<string> {
  const res = await t.api('POST', `${project}/${name}/exec`, { command: ['sh', '-c', script] });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { stdout: string }).stdout.trim();
}

async function create(body: Record<string, unknown>): Promise<Box> {
  const res = await t.api('POST', project, body);
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Box;
}

/** What the packet filter's refusal looks like to a client (never a timeout, nor a refused port). */
const REFUSED = /No route to host/;

before(async () => {
  hostServer = http.createServer((_req, res) => res.end('the host'));
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
  const port = (hostServer.address() as AddressInfo).port;
  // The probe's /bin/sh asks the host's server (at the box's gateway) once, before anything else it runs.
  const probe = [
    '#!/bin/busybox ash',
    `[ -e /tmp/first ] || { gw=$(ip route | awk "/^default/ {print \\$3}"); printf "GET / HTTP/1.0\\r\\n\\r\\n" | nc -w 2 "$gw" ${port} > /tmp/first 2>&1; }`,
    'exec /bin/busybox ash "$@"',
  ];
  const dockerfile = `FROM ${TEST_IMAGE}\nRUN rm /bin/sh && printf '%s\\n' ${probe.map((l) => `'${l.replace(/'/g, `'"'"'`)}'`).join(' ')} > /bin/sh && chmod 755 /bin/sh\n`;
  execFileSync('docker', ['build', '-q', '-t', probeImage, '-'], {
    input: dockerfile,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  t = await startTestCore();
  for (const [name, image] of [
    [probeBase, probeImage],
    [warmBase, TEST_IMAGE],
  ])
    assert.equal((await t.api('POST', '/v1/bases', { name, image })).status, 201);
});

after(async () => {
  for (const name of ['probe', 'peer', 'pooled']) await t?.api('DELETE', `${project}/${name}`);
  for (const name of [probeBase, warmBase]) await t?.api('DELETE', `/v1/bases/${name}`);
  await t?.close();
  hostServer?.close();
  try {
    execFileSync('docker', ['rmi', '-f', probeImage], { stdio: 'ignore' });
  } catch {
    // not made
  }
});

test("a box's first instant is filtered: its main process runs only once the rules are set", async () => {
  await create({ name: 'probe', base: probeBase });
  const first = await poll(async () => (await sh('probe', 'cat /tmp/first 2>/dev/null')) || null, {
    ms: 10_000,
    what: "the probe's first connection",
    everyMs: 100,
  });
  assert.match(first, REFUSED, 'the host was refused to the very first connection');
  // The same connection from a box with host: true does reach it: the probe asks what it seems to.
  const changed = (await (await t.api('PUT', `${project}/probe`, { network: { host: true } })).json()) as Box;
  assert.deepEqual(changed.network, {
    egress: 'open',
    allow: [],
    host: true,
  });
  await sh('probe', 'rm /tmp/first');
  assert.equal(await sh('probe', 'tail -n1 /tmp/first'), 'the host');
});

test("a warm-pool container claimed by a create is on the project's network with the box's rules", async () => {
  assert.equal((await t.api('PUT', `/v1/bases/${warmBase}`, { warm: 1 })).status, 200);
  await create({ name: 'peer' });
  await sh('peer', 'mkdir -p /tmp/w && echo peer > /tmp/w/index.html && httpd -p 8080 -h /tmp/w');
  const pool = async () =>
    ((await (await t.api('GET', '/v1/system')).json()) as SystemInfo).pools.find((p) => p.base === warmBase);
  await poll(async () => (await pool())?.ready === 1, { ms: 30_000, what: 'the pool container', everyMs: 200 });
  await create({ name: 'pooled', base: warmBase, network: { egress: 'allowlist', allow: [] } });
  assert.equal((await pool())?.hits, 1, 'the create took the pool container');
  // Its project's box by name (the engine's resolver answers on the project's network); its gateway, the host, closed.
  const peer = await sh('pooled', "nslookup peer 2>/dev/null | awk '/^Address: / {print $2}' | tail -n1");
  assert.match(peer, /^\d+\.\d+\.\d+\.\d+$/);
  assert.match(await sh('pooled', `nc -w 2 ${peer} 8080 </dev/null 2>&1; true`), REFUSED, 'allowlist: not listed');
  const port = (hostServer.address() as AddressInfo).port;
  const gateway = await sh('pooled', "ip route | awk '/^default/ {print $3}'");
  assert.equal(gateway, await sh('peer', "ip route | awk '/^default/ {print $3}'"), "the project's network");
  assert.match(await sh('pooled', `nc -w 2 ${gateway} ${port} </dev/null 2>&1; true`), REFUSED);
  const opened = await t.api('PUT', `${project}/pooled`, { network: { egress: 'allowlist', allow: [`${peer}/32`] } });
  assert.equal(opened.status, 200);
  assert.equal(await sh('pooled', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${peer} 8080 | tail -n1`), 'peer');
});
