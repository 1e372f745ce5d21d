import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../shared/schemas/box';
import { TEST_IMAGE } from '../../../test-support/core-process';
import { previewRequest, startBoxServers } from '../../../test-support/preview-http';
import { PrivateEngine, withPrivateEngineCore } from '../../../test-support/private-engine';
import { createVersionService, json } from '../../../test-support/services';
import type { TestCore } from '../../../test-support/test-core';
import { WsSession } from '../../../test-support/ws-session';

// An engine the way a VM engine looks (Docker Desktop, colima, Podman machine): its socket on a
// host path, its containers in a network namespace of their own whose addresses the host cannot
// reach, its bridge at an address no host interface has, the process ids it reports not this
// host's (its own PID namespace): boxes' packet filters are set through it. Exec, console, files, publishing and
// services must all reach the box through the engine or its agent.
const skip = PrivateEngine.unavailableReason();
if (skip) console.warn(`SKIPPED far engine tests: ${skip}`);

// Its project networks in a range the host has no route to (in Boxdesk's default range, an address
// could be taken on the host's own engine too, and a dial there would reach another container:
// the driver tells them apart by the bridge, but this test wants an address nothing answers on).
process.env.BOXDESK_NETWORK_POOL = '172.31.0.0/17';

let t: TestCore;
const P = '/v1/projects/far/boxes';

withPrivateEngineCore(skip, (_engine, core) => (t = core), {
  dockerdArgs: ['--bip', '172.31.250.1/24'],
  ownPids: true,
  prepare: (engine) => engine.loadImageFromShared(TEST_IMAGE),
});

/**
 * What this host gets asking the address directly, within 2 s (its outbound traffic may be
 * answered by a gateway that accepts any connection, so an open connection proves nothing).
 */
async function directly(address: string, port: number): Promise<string> {
  try {
    const res = await fetch(`http://${address}:${port}/`, { signal: AbortSignal.timeout(2000) });
    return await res.text();
  } catch (err) {
    return (err as Error).message;
  }
}

test(
  "a box on an engine whose addresses the host cannot reach: exec, files, console, publish and a service's health checks all work",
  { skip: skip ?? false },
  async () => {
    await json<Box>(t.api('POST', P, { name: 'web' }), 201);
    await startBoxServers(t.api, `${P}/web`, { port: 8080, text: 'served from far away' });
    const ip = await json<{ stdout: string }>(
      t.api('POST', `${P}/web/exec`, { command: ['sh', '-c', "ip -4 -o addr show eth0 | awk '{print $4}'"] }),
      200,
    );
    const address = ip.stdout.trim().split('/')[0]!;
    assert.match(address, /^\d+\.\d+\.\d+\.\d+$/, `the box has an address: ${ip.stdout}`);
    assert.doesNotMatch(await directly(address, 8080), /served from far away/, `the host cannot reach ${address}`);

    const put = await fetch(`${t.url}${P}/web/files?path=/tmp/note.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
      body: 'written through the engine',
    });
    assert.equal(put.status, 200, await put.text());
    const read = await t.api('GET', `${P}/web/files?path=/tmp/note.txt`);
    assert.equal(await read.text(), 'written through the engine');

    const shell = new WsSession(`${t.url.replace('http', 'ws')}${P}/web/console`, t.token, { tty: true });
    await shell.opened;
    shell.ws.send(Buffer.from('echo far-$((40+2))\n'));
    await shell.waitForText(/far-42/);
    shell.ws.close();

    const box = await json<Box>(t.api('POST', `${P}/web/publish`, { port: 8080, auth: 'public' }), 200);
    const host = new URL(box.url!).host;
    const page = await previewRequest(t.core.proxyPort, host, '/');
    assert.equal(page.status, 200, page.body);
    assert.equal(page.body, 'served from far away');
    const missing = await previewRequest(t.core.proxyPort, host.replace('web--', 'web-9999--'), '/');
    assert.notEqual(missing.status, 200);

    const { first } = await createVersionService(t.api, '/v1/projects/far/services', { name: 'api' });
    assert.equal(first.status, 'live', JSON.stringify(first));
    const live = await json<{ url: string }>(t.api('GET', '/v1/projects/far/services/api'), 200);
    const served = await previewRequest(t.core.proxyPort, new URL(live.url).host, '/');
    assert.equal(served.body.trim(), 'v1');
  },
);

test('a port nothing listens on through the relay answers 502 saying so', { skip: skip ?? false }, async () => {
  await json<Box>(t.api('POST', `${P}/web/publish`, { port: 8090, auth: 'public' }), 200);
  const box = await json<Box>(t.api('GET', `${P}/web`), 200);
  const page = await previewRequest(t.core.proxyPort, new URL(box.url!).host, '/');
  assert.equal(page.status, 502);
  assert.match(page.body, /nothing listens on port 8090/);
});
