import assert from 'node:assert/strict';
import type { BoxSocket } from '../container-engine';
import { test } from 'node:test';
import { eventually, isEngineError, tarOf, untar, type Contract } from './harness';

function httpGet(socket: BoxSocket): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    socket.on('data', (b: Buffer) => (text += b.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.end('GET / HTTP/1.0\r\n\r\n');
  });
}

/** Volumes, networks and connections to a container's ports. */
export function resourceCases(c: () => Contract): void {
  volumeCases(c);
  networkCases(c);
}

/** Volumes, alone and mounted. */
function volumeCases(c: () => Contract): void {
  test('volumes: create (an existing one is kept as it is), inspect, list by label, remove (twice is fine)', async () => {
    const { engine, tag, labels } = c();
    const name = `${tag}-vol`;
    const volume = await engine.createVolume(name, labels);
    assert.deepEqual([volume.name, volume.labels], [name, labels]);
    const again = await engine.createVolume(name, { other: 'labels' });
    assert.deepEqual(again.labels, labels, 'the first labels stay');
    assert.equal((await engine.inspectVolume(name))?.name, name);
    assert.deepEqual(
      (await engine.listVolumes(labels)).map((v) => v.name),
      [name],
    );
    await engine.removeVolume(name);
    assert.equal(await engine.inspectVolume(name), null);
    await engine.removeVolume(name);
  });

  test('a mounted volume: shared between containers, read-only where asked, not part of a root’s changes, kept while in use', async () => {
    const { engine, tag, labels, create } = c();
    const name = `${tag}-shared`;
    await engine.createVolume(name, labels);
    const implicit = `${tag}-implicit`;
    const writer = await create('vol-writer', ['true'], {
      mounts: [
        { volume: name, path: '/data', readOnly: false },
        { volume: implicit, path: '/implicit', readOnly: false },
      ],
    });
    assert.deepEqual(
      (await engine.inspectVolume(implicit))?.labels,
      {},
      'a volume that did not exist is made, unlabelled',
    );
    const reader = await create('vol-reader', ['true'], {
      mounts: [{ volume: name, path: '/ro', readOnly: true }],
    });
    await engine.putArchive(writer, '/data', tarOf({ 'shared.txt': 'through the volume' }));
    const shared = { type: 'file', content: 'through the volume', linkname: null };
    assert.deepEqual(
      await untar(await engine.getArchive(reader, '/ro/.')),
      // Podman: no entry for `.`, names without `./` (docs/engines.md).
      engine.name === 'podman'
        ? { 'shared.txt': shared }
        : { './': { type: 'directory', content: '', linkname: null }, './shared.txt': shared },
    );
    await assert.rejects(engine.putArchive(reader, '/ro', tarOf({ 'no.txt': 'x' })), (err: Error) =>
      /read-only/.test(err.message),
    );
    assert.deepEqual(
      await engine.containerChanges(writer),
      // Podman does not list the mount points (docs/engines.md).
      engine.name === 'podman'
        ? []
        : [
            { path: '/data', kind: 'added' },
            { path: '/implicit', kind: 'added' },
          ],
      'the mount points only',
    );
    // Docker's words, then Podman's.
    await assert.rejects(engine.removeVolume(name), (err: Error) => /in use|is being used/.test(err.message));
    await engine.removeContainer(writer);
    await engine.removeContainer(reader);
    await engine.removeVolume(name);
    await engine.removeVolume(implicit);
    assert.equal(await engine.inspectVolume(name), null);
  });
}

/** Networks. */
function networkCases(c: () => Contract): void {
  test('networks: ensure is idempotent, connect twice is fine, remove twice is fine; a served port answers through connect()', async () => {
    const { engine, tag, labels, create } = c();
    const name = `${tag}-net`;
    const id = await engine.ensureNetwork(name, labels);
    assert.equal(await engine.ensureNetwork(name, labels), id);
    const server = await create('httpd', [
      'sh',
      '-c',
      'mkdir -p /www && echo served-by-box > /www/index.html && exec httpd -f -p 8080 -h /www',
    ]);
    await engine.connectNetwork(name, server);
    await assert.rejects(engine.connect(server, 8080), isEngineError('conflict'), 'not running yet');
    await engine.startContainer(server);
    await engine.connectNetwork(name, server);
    let body = '';
    await eventually(async () => {
      body = await engine
        .connect(server, 8080)
        .then(httpGet)
        .catch(() => '');
      return body.includes('served-by-box');
    }, 'httpd answers');
    assert.match(body, /^HTTP\/1\.[01] 200/);
    const nothing = engine.connect(server, 8081);
    // Where the engine's bridge is not on this host (this machine's Podman service), connect() is
    // relayed by an exec; without the box agent (this container has none) the relay cannot tell a
    // closed port before it is read: the stream ends at once, empty (docs/engines.md).
    if (engine.name !== 'podman') await assert.rejects(nothing, isEngineError('not_found'), 'nothing listens there');
    else assert.equal(await nothing.then(httpGet).catch(() => ''), '', 'nothing listens there');
    await engine.removeContainer(server);
    await engine.removeNetwork(name);
    await engine.removeNetwork(name);
  });

  test('networks prune: labelled networks no container is on go; given an age, only those made before it', async () => {
    const { engine, tag, labels } = c();
    // A label of this case's own: the prune must not reach another test's networks.
    const mine = { ...labels, 'boxdesk.role': `${tag}-prune` };
    const [old, fresh] = [`${tag}-prune-old`, `${tag}-prune-fresh`];
    const oldId = await engine.ensureNetwork(old, mine);
    // Podman reads the age in whole seconds (its cutoff can fall up to a second early): 2.2 s against 1.
    await new Promise((r) => setTimeout(r, 2_200));
    const freshId = await engine.ensureNetwork(fresh, mine);
    await engine.pruneNetworks(mine, 1);
    assert.equal(await engine.ensureNetwork(fresh, mine), freshId, 'a network younger than the age stays');
    assert.notEqual(await engine.ensureNetwork(old, mine), oldId, 'an older one went (made again now)');
    await engine.pruneNetworks(mine);
    assert.notEqual(await engine.ensureNetwork(fresh, mine), freshId, 'without an age, every unused one goes');
    await engine.removeNetwork(old);
    await engine.removeNetwork(fresh);
  });

  test('networks in a pool: each takes a /24 of it no other network has, its gateway the first address', async (ctx) => {
    const { engine, tag, labels } = c();
    if (!engine.packetFilter) return ctx.skip('an engine without real networking has no addresses');
    // A range of its own (not Boxdesk's 10.210.0.0/16, where other cores on this engine make theirs).
    const pool = '10.209.250.0/23';
    const names = [`${tag}-pool-a`, `${tag}-pool-b`];
    try {
      for (const name of names) await engine.ensureNetwork(name, labels, { pool });
      const [a, b] = await Promise.all(names.map((name) => engine.networkSubnet(name)));
      assert.ok(a && b);
      assert.notEqual(a.subnet, b.subnet);
      for (const { subnet, gateway } of [a, b]) {
        assert.match(subnet, /^10\.209\.25[01]\.0\/24$/);
        assert.equal(gateway, subnet.replace('.0/24', '.1'));
      }
      await assert.rejects(
        engine.ensureNetwork(`${tag}-pool-c`, labels, { pool }),
        /every \/24 of the address range 10\.209\.250\.0\/23 is taken/,
      );
    } finally {
      for (const name of [...names, `${tag}-pool-c`]) await engine.removeNetwork(name);
    }
    assert.equal(await engine.networkSubnet(names[0]!), null);
  });
}
