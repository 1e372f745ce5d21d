import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startTestCore, type TestCore } from '../../../test-support/test-core';

let t: TestCore;
before(async () => {
  t = await startTestCore();
});
after(() => t.close());

/** A TCP listener that counts the connections it receives: the "other host" of a forged reference. */
async function trap(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

test('an image that is not a Docker reference is a 400 before any engine call, and nothing is registered', async () => {
  const listener = await trap();
  try {
    for (const image of [
      `a/../../127.0.0.1:${listener.port}`,
      'a/../../127.0.0.1:1',
      'Upper/Case:1',
      'a//b',
      'x y',
      'a:b:c',
      'http://example/x',
      'a@sha256:12',
    ]) {
      const res = await t.api('POST', '/v1/bases', { name: 'zz', image });
      assert.equal(res.status, 400, image);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      const body = (await res.json()) as { code: string; errors?: { path: string }[] };
      assert.equal(body.code, 'invalid_body');
      assert.equal(body.errors?.[0]?.path, 'body.image', image);
    }
    assert.equal(listener.connections(), 0, 'the core never connected to the host named in the reference');
    const { items } = (await (await t.api('GET', '/v1/bases')).json()) as { items: { name: string }[] };
    assert.ok(!items.some((b) => b.name === 'zz'));
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200, 'the core is still alive');
  } finally {
    await listener.close();
  }
});

test('references with a registry, port, tag and digest pass validation (the engine then says whether it has them)', async () => {
  for (const image of [
    'registry.example:5000/team/app:1.2',
    'localhost:5000/a_b/c-d',
    `busybox@sha256:${'0'.repeat(64)}`,
  ]) {
    const res = await t.api('POST', '/v1/bases', { name: 'absent', image });
    assert.equal(res.status, 404, image);
  }
});
