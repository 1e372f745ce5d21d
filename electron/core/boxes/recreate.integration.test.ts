import assert from 'node:assert/strict';
import Fastify from 'fastify';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { TEST_IMAGE, tempDataDir } from '../../../test-support/core-process';
import { containersOfBox, docker } from '../../../test-support/docker';
import { BaseService } from '../bases/service';
import { BaseStore } from '../bases/store';
import type { Db } from '../db/database';
import { openCoreDatabase } from '../modules';
import { DockerEngine } from '../engine/docker/docker-engine';
import { EngineMonitor } from '../engine/engine-monitor';
import { EventBus } from '../events/event-bus';
import { randomBase32 } from '../ids';
import { EgressLog } from '../networks/egress-log';
import { EgressResolver } from '../networks/egress-resolver';
import { BoxNetworking, helperBinary } from '../networks/box-networking';
import { DEFAULT_NETWORK_POOL } from '../networks/egress-rules';
import { BoxExtensions } from './extensions';
import { BoxRecreator } from './recreate';
import { RootImages } from './root-images';
import { BoxService } from './service';
import { BoxStore } from './store';
import { BoxWorkspaces } from './workspaces';
import { Regions } from '../engine/regions/regions';

// The recreate primitive on its own, with the real engine and store: the
// "current root" form has no route yet (volume attach will use it).

const dataDir = tempDataDir();
const engine = new DockerEngine();
const log = Fastify({ logger: false }).log;
const instanceId = `recreate-${randomBase32(8)}`;
let db: Db;
let store: BoxStore;
let boxes: BoxService;
let recreator: BoxRecreator;
let monitor: EngineMonitor;
let networking: BoxNetworking;

before(async () => {
  db = openCoreDatabase(dataDir);
  const bus = new EventBus();
  monitor = new EngineMonitor(engine, log);
  await monitor.start();
  const bases = new BaseService(new BaseStore(db), engine, bus, log);
  bases.registerDefault(TEST_IMAGE, true);
  store = new BoxStore(db);
  const roots = new RootImages(engine, instanceId, log);
  const workspaces = new BoxWorkspaces(null);
  networking = new BoxNetworking({
    ...{ engine, instanceId, log, gate: null, agent: helperBinary(), socketDir: `${dataDir}/netfilter` },
    ...{ pool: DEFAULT_NETWORK_POOL, running: () => [], egress: new EgressLog({ bus, boxOf: () => null }) },
    ...{ proxyPort: 7479, resolver: new EgressResolver(null) },
  });
  boxes = new BoxService({
    regions: new Regions([{ name: 'local', engine, monitor }]),
    store,
    engine,
    bases,
    bus,
    monitor,
    instanceId,
    log,
    roots,
    secrets: { check: () => undefined },
    extensions: new BoxExtensions(),
    workspaces,
    networking,
  });
  recreator = new BoxRecreator({ store, engine, boxes, roots, workspaces, bus, instanceId, log });
});
after(async () => {
  for (const row of store.all()) await boxes.delete(row.project, row.name).catch(() => undefined);
  await networking.stop(); // its netfilter helper, and the project's network
  monitor.dispose();
  db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function sh(containerId: string, script: string): Promise<string> {
  const id = await engine.createExec(containerId, { command: ['sh', '-c', script], env: {}, tty: false, stdin: false });
  const streams = await engine.startExec(id, { tty: false, stdin: false });
  let out = '';
  streams.stdout.on('data', (c: Buffer) => (out += c.toString()));
  streams.stderr.resume();
  await new Promise((resolve) => streams.stdout.on('end', resolve));
  return out;
}

const recreateCurrent = (name: string) =>
  boxes.mutex.run(boxes.find('rc', name).id, () => recreator.recreate(boxes.find('rc', name), 'current'));

test('recreating a running box from its current root keeps the box, its files and its running state', async () => {
  const box = await boxes.create('rc', { name: 'live', environment: { A: '1' }, tags: { t: 'v' } });
  const before = boxes.find('rc', 'live');
  await sh(before.container_id!, 'echo kept > /root/file; sync');
  const after = await recreateCurrent('live');
  assert.equal(after.id, box.id);
  assert.equal(after.status, 'running');
  assert.notEqual(after.container_id, before.container_id);
  assert.equal(after.owns_image, 1);
  assert.deepEqual(JSON.parse(after.environment), { A: '1' });
  assert.deepEqual(JSON.parse(after.tags), { t: 'v' });
  const containers = await containersOfBox(box.id);
  assert.deepEqual(
    containers.map((c) => [c.Id, c.State]),
    [[after.container_id, 'running']],
  );
  assert.equal(await sh(after.container_id!, 'cat /root/file'), 'kept\n');

  // A second recreate builds on the first root image; deleting the box takes both.
  await sh(after.container_id!, 'echo again > /root/second; sync');
  const again = await recreateCurrent('live');
  assert.equal(await sh(again.container_id!, 'cat /root/file /root/second'), 'kept\nagain\n');
  await boxes.delete('rc', 'live');
  await assert.rejects(docker.getImage(again.image).inspect(), /no such image/i);
  await assert.rejects(docker.getImage(after.image).inspect(), /no such image/i);
});

test('recreating a stopped box keeps it stopped', async () => {
  await boxes.create('rc', { name: 'cold' });
  await sh(boxes.find('rc', 'cold').container_id!, 'echo cold > /root/file; sync');
  await boxes.stop('rc', 'cold');
  const after = await recreateCurrent('cold');
  assert.equal(after.status, 'stopped');
  assert.equal((await engine.inspectContainer(after.container_id!))?.running, false);
  await boxes.resume('rc', 'cold');
  assert.equal(await sh(after.container_id!, 'cat /root/file'), 'cold\n');
});

test('a swap recorded but cut short by a crash is finished at start: one container, on the new root', async () => {
  await boxes.create('rc', { name: 'cut' });
  const row = boxes.find('rc', 'cut');
  await sh(row.container_id!, 'echo before > /root/file; sync');
  const image = await engine.commitContainer(row.container_id!, {
    'boxdesk.instance': instanceId,
    'boxdesk.role': 'root',
    'boxdesk.owner': row.id,
  });
  await sh(row.container_id!, 'echo after > /root/file; sync');
  // What a crash after the intent was written leaves: the row says where to go, the old container is still there.
  store.update(
    row.id,
    { pending_root: JSON.stringify({ image, ownsImage: true, origin: null, run: true }) },
    row.updated_at,
  );
  await recreator.finishPending();
  const done = boxes.find('rc', 'cut');
  assert.equal(done.pending_root, null);
  assert.equal(done.image, image);
  const containers = await containersOfBox(row.id);
  assert.deepEqual(
    containers.map((c) => [c.Id, c.State]),
    [[done.container_id, 'running']],
  );
  assert.equal(await sh(done.container_id!, 'cat /root/file'), 'before\n');
});
