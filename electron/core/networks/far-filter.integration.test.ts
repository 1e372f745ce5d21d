import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { PrivateEngine, startTwoRegionCore } from '../../../test-support/private-engine';
import { json } from '../../../test-support/services';
import { deleteBoxes, type TestCore } from '../../../test-support/test-core';

/*
 * The packet filter of boxes on a far engine: two regions, `local` (the shared engine) and `far`
 * (a second dockerd in a network, PID and mount namespace of its own, as in a VM). The process ids
 * the far engine reports name other processes on this host, or none, so the helper that enters a
 * box's namespace by its process id (the local one) cannot reach a far box: its rules come from a
 * helper the core makes on the far engine itself, in the box's network namespace. In the far
 * engine's namespace: an "outside" server (a container on its default bridge, answering on 80 and
 * 8082) and its "host" (a server on the far namespace's own addresses, port 8081).
 */
const skip = PrivateEngine.unavailableReason();
if (skip) console.warn(`SKIPPED far packet filter tests: ${skip}`);
// Project networks outside the far bridge's 172.31.250.0/24, in a range the host has no route to.
process.env.BOXDESK_NETWORK_POOL = '172.31.0.0/17';

const P = '/v1/projects/farfilter/boxes';
const FAR_HOST = '172.31.250.1';
let far: PrivateEngine;
let farDocker: ReturnType<PrivateEngine['client']>;
let outside = '';
let t: TestCore;
const started = { far: false, core: false };

/** A server in the far engine's namespace: `page` on `ports`, on its default bridge or its host's network. */
async function farServer(name: string, network: 'bridge' | 'host', ports: number[], page: string): Promise<string> {
  const serve = ports.map((p) => `httpd -p ${p} -h /w`).join(' && ');
  const c = await farDocker.createContainer({
    name,
    Image: TEST_IMAGE,
    Cmd: ['sh', '-c', `mkdir -p /w && echo ${page} > /w/index.html && ${serve} && exec sleep 1000000`],
    HostConfig: { NetworkMode: network, Init: true },
  });
  await c.start();
  const info = await c.inspect();
  return info.NetworkSettings.Networks.bridge?.IPAddress ?? '';
}

before(async () => {
  if (skip) return;
  far = new PrivateEngine(['--bip', `${FAR_HOST}/24`], { ownPids: true });
  await far.start();
  started.far = true;
  await far.loadImageFromShared(TEST_IMAGE);
  farDocker = far.client();
  outside = await farServer('outside', 'bridge', [80, 8082], 'outside');
  await farServer('far-host', 'host', [8081], 'the-far-host');
  t = await startTwoRegionCore(far);
  started.core = true;
});
after(async () => {
  if (started.core) await deleteBoxes(t, P).finally(() => t.close());
  if (started.far) await far.destroy();
});

/** The last line of what ADDRESS:PORT answers to GET / from the box, or nc's complaint. */
async function get(box: string, address: string, port: number): Promise<string> {
  const script = `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${address} ${port} 2>&1 | tail -n1`;
  const run = await json<{ stdout: string }>(t.api('POST', `${P}/${box}/exec`, { command: ['sh', '-c', script] }), 200);
  return run.stdout.trim();
}

/** What the packet filter's refusal looks like to a client (never a timeout, nor a refused port). */
const REFUSED = /No route to host/;

async function create(name: string, network: Record<string, unknown>): Promise<Box> {
  return json<Box>(t.api('POST', P, { name, config: { region: 'far' }, network }), 201);
}

test(
  'a far box open to everything reaches the outside and its engine host: what the next tests close is there',
  { skip: skip ?? false },
  async () => {
    const open = await create('open', { egress: 'open', host: true });
    assert.equal(open.status, 'running');
    assert.match(outside, /^172\.31\.250\.\d+$/, 'the outside server has an address on the far bridge');
    assert.equal(await get('open', outside, 80), 'outside');
    assert.equal(await get('open', FAR_HOST, 8081), 'the-far-host');
  },
);

test(
  'a far box with egress none starts, and reaches neither the outside nor the host; a change of its settings holds at once',
  { skip: skip ?? false },
  async () => {
    const closed = await create('closed', { egress: 'none' });
    assert.equal(closed.status, 'running');
    assert.match(await get('closed', outside, 80), REFUSED);
    assert.match(await get('closed', FAR_HOST, 8081), REFUSED);

    const res = await t.api('PUT', `${P}/closed`, { network: { egress: 'allowlist', allow: [`${outside}:80`] } });
    assert.equal(res.status, 200, await res.text());
    assert.equal(await get('closed', outside, 80), 'outside');
    assert.match(await get('closed', FAR_HOST, 8081), REFUSED);
  },
);

test(
  "a far box with an allowlist reaches what is listed and nothing else, the host closed; the helper's image was copied to the far engine once and no helper is left there",
  { skip: skip ?? false },
  async () => {
    await create('listed', { egress: 'allowlist', allow: [`${outside}:80`] });
    assert.equal(await get('listed', outside, 80), 'outside');
    assert.match(await get('listed', outside, 8082), REFUSED);
    assert.match(await get('listed', FAR_HOST, 8081), REFUSED);

    const images = await farDocker.listImages({ filters: { label: ['boxdesk.role=netfilter-helper'] } });
    assert.equal(images.length, 1, 'one copy of the helper image in the far engine');
    const helpers = await farDocker.listContainers({ all: true, filters: { label: ['boxdesk.role=netfilter-join'] } });
    assert.deepEqual(helpers, [], 'no join helper is left in the far engine');
  },
);
