import path from 'node:path';
import { BOX_EVENTS } from '../../../shared/schemas/box';
import { bases } from '../bases';
import { idempotency } from '../idempotency';
import type { ContainerEngine } from '../engine/container-engine';
import { now } from '../ids';
import { defineModule, type CoreContext } from '../module';
import type { BasesPort } from '../bases/port';
import type { IdempotencyPort } from '../idempotency/port';
import { EGRESS_EVENTS } from '../../../shared/schemas/egress';
import { BoxEgress } from '../networks/box-egress';
import { BoxNetworking, helperBinary } from '../networks/box-networking';
import { EgressLog } from '../networks/egress-log';
import { EgressResolver } from '../networks/egress-resolver';
import { registerEgressRoutes } from '../networks/egress-routes';
import { networkPool } from '../networks/egress-rules';
import { secrets as secretsModule } from '../secrets';
import type { SecretsPort } from '../secrets/port';
import { storage } from '../storage';
import type { StoragePort } from '../storage/port';
import { system } from '../system';
import type { SystemPort } from '../system/port';
import { WarmPool } from './pool/warm-pool';
import { BOX_ID_PREFIX } from './box-create';
import { networkedOf, secretsOf, toBox, type BoxRow } from './box-row';
import { BoxExtensions } from './extensions';
import { BOXES_MIGRATIONS } from './migrations';
import type { BoxesPort } from './port';
import { PublishedBoxes } from './published-boxes';
import { Reconciler } from './reconciler';
import { BoxRecreator } from './recreate';
import { RootImages } from './root-images';
import { registerBoxRoutes } from './routes';
import { BoxService } from './service';
import { registerBoxStatsRoutes } from './stats-routes';
import { BoxStore } from './store';
import { BoxWorkspaces } from './workspaces';
import { LifecycleClocks } from './lifecycle/clocks';
import { registerSleepRoutes } from './lifecycle/routes';
import { BoxSleep } from './lifecycle/sleep';
import { BoxUsage } from './lifecycle/usage';
import { settleWorkspaces } from './workspace-recovery';

/** What the boxes module is made of; other modules see only `port`. */
export interface BoxesParts {
  store: BoxStore;
  service: BoxService;
  recreator: BoxRecreator;
  reconciler: Reconciler;
  extensions: BoxExtensions;
  bases: BasesPort;
  idempotency: IdempotencyPort;
  engine: ContainerEngine;
  workspaces: BoxWorkspaces;
  usage: BoxUsage;
  sleep: BoxSleep;
  clocks: LifecycleClocks;
  pool: WarmPool;
  port: BoxesPort;
  networking: BoxNetworking;
  egress: BoxEgress;
  egressLog: EgressLog;
}

/** Projects' networks and boxes' packet filters, set through the one netfilter helper before a box's main process runs. */
function boxNetworking(
  ctx: CoreContext,
  store: BoxStore,
  egressLog: EgressLog,
  resolver: EgressResolver,
): BoxNetworking {
  return new BoxNetworking({
    egress: egressLog,
    engine: ctx.engine,
    instanceId: ctx.instanceId,
    log: ctx.log,
    gate: ctx.agentHub ?? null,
    agent: helperBinary(),
    socketDir: ctx.engine.endpoint.url.startsWith('unix://') ? path.join(ctx.config.dataDir, 'netfilter') : null,
    pool: networkPool(),
    running: () =>
      store
        .all()
        .filter((row) => row.status === 'running' && row.container_id)
        .map((row) => ({ box: networkedOf(row), containerId: row.container_id! })),
    proxyPort: ctx.config.egressPort,
    resolver,
  });
}

/** The egress proxy as boxes use it (networks/box-egress.ts), holders of secrets told to the secrets. */
function boxEgress(ctx: CoreContext, store: BoxStore, networking: BoxNetworking, secrets: SecretsPort): BoxEgress {
  secrets.useHolders((name) =>
    store
      .all()
      .filter((row) => secretsOf(row).includes(name))
      .map((row) => `${row.project}/${row.name}`),
  );
  const byId = (id: string) => {
    const row = store.getById(id);
    return row && networkedOf(row);
  };
  const running = () =>
    store
      .all()
      .filter((row) => row.status === 'running' && row.container_id)
      .map((row) => ({ box: networkedOf(row), containerId: row.container_id! }));
  return new BoxEgress({
    ...{ engine: ctx.engine, networking, secrets, resolver: networking.resolver, port: ctx.config.egressPort },
    boxDir: (id) => ctx.agentHub?.dirOf(id) ?? null,
    peers: (project) =>
      store
        .all()
        .filter((row) => row.project === project)
        .map((row) => row.name),
    ...{ byId, running, log: ctx.log },
  });
}

/** A command's environment in the box: the proxy's variables under the box's own, its secrets' placeholders over them. */
async function commandEnvironment(egress: BoxEgress, row: BoxRow): Promise<Record<string, string>> {
  const own = JSON.parse(row.environment) as Record<string, string>;
  const { proxy, placeholders } = await egress.environment(networkedOf(row));
  return { ...proxy, ...own, ...placeholders };
}

/** Boxes' networks and packet filters, the egress proxy, and the egress log both feed. */
function boxNetworks(ctx: CoreContext, store: BoxStore, secrets: SecretsPort) {
  const egressLog = new EgressLog({ bus: ctx.bus, boxOf: (id) => store.getById(id) ?? null });
  const networking = boxNetworking(ctx, store, egressLog, new EgressResolver(ctx.config.egressHosts));
  const egress = boxEgress(ctx, store, networking, secrets);
  // What the egress proxy carries or refuses is in the box's log under the name the box asked for.
  egress.proxy.onConnection((c) =>
    egressLog.record(c.box_id, { host: c.host, port: c.port, allowed: c.allowed, bytes: c.bytes, at: new Date(c.at) }),
  );
  return { egressLog, networking, egress };
}

/** A box's data mounts as recorded now (a volume attached or detached), said on the bus. */
function recordDataMounts(
  store: BoxStore,
  bus: CoreContext['bus'],
  boxId: string,
  mounts: Parameters<BoxesPort['setDataMounts']>[1],
): BoxRow {
  const next = store.update(boxId, { data_mounts: mounts.length ? JSON.stringify(mounts) : null }, now());
  bus.emit('box.updated', { box: toBox(next) }, next.project);
  return next;
}

function makeBoxes(
  ctx: CoreContext,
  bases: BasesPort,
  idempotency: IdempotencyPort,
  storagePort: StoragePort,
  systemPort: SystemPort,
  secrets: SecretsPort,
): BoxesParts {
  const { db, engine, bus, monitor, instanceId, log } = ctx;
  const store = new BoxStore(db);
  const workspaces = new BoxWorkspaces(storagePort, engine);
  const roots = new RootImages(engine, instanceId, log, ctx.maxImageLayers);
  const extensions = new BoxExtensions();
  const { egressLog, networking, egress } = boxNetworks(ctx, store, secrets);
  const service = new BoxService({
    ...{ store, engine, bases, bus, monitor, instanceId, log, roots, extensions, workspaces },
    queueWaitMs: ctx.boxQueueWaitMs,
    ...{ networking, secrets },
    regions: ctx.regions,
  });
  const pool = new WarmPool({
    ...{ engine, bases, workspaces, monitor, instanceId, log },
    containerSpec: (row) => service.containerSpec(row),
    hasBox: (id) => store.getById(id) !== undefined,
  });
  service.usePool(pool);
  systemPort.reportPools(() => pool.report());
  systemPort.reportRegionBoxes(() => store.countByRegion());
  const recreator = new BoxRecreator({ store, engine, boxes: service, roots, workspaces, bus, instanceId, log });
  const reconciler = new Reconciler(store, service, engine, monitor, bus, instanceId, log, pool);
  const published = new PublishedBoxes(db);
  const usage = new BoxUsage(store);
  const sleep = new BoxSleep(service, engine, usage);
  const clocks = new LifecycleClocks({ store, usage, sleep, boxes: service, bus, monitor, log });
  const port: BoxesPort = {
    find: (project, name) => service.find(project, name),
    lookup: (project, name) => store.get(project, name),
    byId: (id) => store.getById(id),
    withLock: (boxId, work) => service.withLock(boxId, work),
    create: (project, input, internal) => service.create(project, input, internal),
    stop: (project, name) => service.stop(project, name),
    resume: (project, name) => service.resume(project, name),
    setLifecycle: (project, name, lifecycle) => service.update(project, name, { lifecycle }),
    delete: (project, name) => service.delete(project, name),
    requireRunning: (project, name, op) => service.requireRunning(project, name, op),
    awake: (project, name, op) => sleep.awake(project, name, op),
    environmentOf: (row) => commandEnvironment(egress, row),
    egress: egress.proxy,
    wake: (row) => sleep.wake(row),
    touch: (boxId) => usage.touch(boxId),
    beforePause: (listener) => sleep.beforePause(listener),
    afterUpdate: (listener) => service.afterUpdate(listener),
    use: (boxId) => usage.hold(boxId),
    containerRefused: (row, err) => service.containerRefused(row, err),
    oomSince: (containerId, since) => service.oomSince(containerId, since),
    replaceRoot: (row, root) => recreator.recreate(row, root),
    roots,
    workspaces,
    freeze: (row, work) => service.freeze(row, work),
    recordSizes: (boxId, sizes) => service.recordSizes(boxId, sizes),
    usersOfBase: (base) => store.usersOfBase(base),
    withOrigin: (snapshotId) => store.withOrigin(snapshotId),
    mountsOf: (project, name) => store.mountsOf(project, name),
    setDataMounts: (boxId, mounts) => recordDataMounts(store, bus, boxId, mounts),
    published,
    drainPool: (base) => pool.drain(base),
    recordEgress: (boxId, record) => egressLog.record(boxId, record),
    useForkSnapshots: (snapshots) => extensions.useForkSnapshots(snapshots),
    useVolumes: (volumes) => extensions.useVolumes(volumes),
    holdImages: (holder) => void extensions.imageHolders.push(holder),
    guardClientDeletes: (guard) => void extensions.deleteGuards.push(guard),
  };
  return {
    ...{ store, service, recreator, reconciler, extensions, bases, idempotency, engine, workspaces, port },
    ...{ usage, sleep, clocks, pool, networking, egress, egressLog },
  };
}

/**
 * Boxes: their records and queues, their containers (create, fork, stop, resume, delete),
 * root replacements, the reconciler that makes the engine agree with the store, and stats.
 */
export const boxes = defineModule({
  name: 'boxes',
  needs: [bases, idempotency, storage, system, secretsModule],
  migrations: BOXES_MIGRATIONS,
  events: { ...BOX_EVENTS, ...EGRESS_EVENTS },
  idPrefixes: [BOX_ID_PREFIX],
  create: (ctx, ports) => makeBoxes(ctx, ports.bases, ports.idempotency, ports.storage, ports.system, ports.secrets),
  port: (parts) => parts.port,
  routes: ({ app }, parts) => {
    registerBoxRoutes(app, parts.service, parts.idempotency, parts.sleep);
    registerSleepRoutes(app, parts.sleep);
    registerBoxStatsRoutes(app, parts.service, parts.engine);
    registerEgressRoutes(app, (project, name) => parts.service.find(project, name), parts.egressLog);
  },
  engineUp: {
    // Once the store has reconciled its own items: boxes a snapshot or fork froze are thawed, root
    // replacements finished or rolled back, then workspace items no box names go.
    roots: async (parts, ctx) => {
      await parts.workspaces.available();
      await parts.service.thawFrozen();
      await parts.recreator.finishPending();
      // Warm-pool containers to keep are sorted first: the store items they hold are no box's yet.
      await parts.pool.reconcile();
      await settleWorkspaces(parts.store, parts.workspaces, ctx.log);
    },
    // Then the clocks run (they sleep while the engine is away).
    reconcile: async (parts) => {
      await parts.reconciler.resync();
      parts.clocks.start();
      parts.pool.start();
    },
    // Once boxes agree with the engine: project networks no box is on go (networks/box-networking.ts).
    settled: async (parts) => {
      await parts.networking.prune();
      await parts.networking.resume();
      await parts.egress.resume();
    },
  },
  atStart: {
    // Images nobody names go: not the boxes', the bases' or what other modules hold (snapshots).
    collect: async (parts, ctx) => {
      const held = new Set([...parts.extensions.imageHolders.flatMap((h) => [...h()]), ...parts.bases.images()]);
      await parts.reconciler
        .collectOrphanImages(held)
        .catch((err) => ctx.log.warn({ err }, 'could not collect orphan images'));
    },
  },
  dispose: async (parts) => {
    await parts.pool.dispose();
    await parts.clocks.dispose();
    await parts.reconciler.dispose();
    await parts.networking.stop();
    parts.egressLog.dispose();
    await parts.egress.close();
  },
});
