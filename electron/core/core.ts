import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { AuthService } from './auth/auth-service';
import { RateLimiter } from './http/rate-limiter';
import { registerTokenRoutes } from './auth/routes';
import { TokenStore } from './auth/token-store';
import { BaseAuthoring } from './bases/authoring';
import { registerBaseRoutes } from './bases/routes';
import { BaseService } from './bases/service';
import { BaseStore } from './bases/store';
import { Reconciler } from './boxes/reconciler';
import { BoxRecreator } from './boxes/recreate';
import { RootImages } from './boxes/root-images';
import { registerBoxRoutes } from './boxes/routes';
import { registerBoxStatsRoutes } from './boxes/stats-routes';
import { BoxService } from './boxes/service';
import { BoxStore } from './boxes/store';
import type { CoreConfig } from './config';
import { getMeta, openDatabase, setMeta, type Db } from './db/database';
import type { ContainerEngine } from './engine/container-engine';
import { DockerEngine } from './engine/docker/docker-engine';
import { EngineMonitor } from './engine/engine-monitor';
import { EventBus } from './events/event-bus';
import { registerEventRoutes } from './events/routes';
import { registerExecRoutes } from './exec/routes';
import { ExecService } from './exec/service';
import { registerFileRoutes } from './files/routes';
import { FileService } from './files/service';
import { UploadIntentStore } from './files/upload-intents';
import { createHttpApp } from './http/app';
import { loopbackPolicy } from './http/hardening';
import { SocketRouter } from './http/socket-router';
import { IdempotencyStore } from './idempotency/store';
import { startPublishing } from './publishing/publishing';
import { randomBase32 } from './ids';
import { registerSnapshotRoutes } from './snapshots/routes';
import { SnapshotService } from './snapshots/service';
import { SnapshotStore } from './snapshots/store';
import { DisposableStore, toDisposable } from './lifetime';
import { VolumeBackups } from './volumes/backups';
import { VolumeCopies } from './volumes/copies';
import { VolumeHelpers } from './volumes/helpers';
import { recoverVolumes } from './volumes/recovery';
import { registerVolumeRoutes } from './volumes/routes';
import { VolumeService } from './volumes/service';
import { VolumeStore } from './volumes/store';
import { DEFAULT_BASE } from './bases/service';
import { BoxAgent } from './publishing/box-connector';
import { ProxyTraffic } from './publishing/proxy-traffic';
import { recoverDeploymentRecords, removeStrayColors } from './services/recovery';
import { registerServiceRoutes } from './services/routes';
import { ServiceManager } from './services/service';
import { ServiceStore } from './services/store';
import { Storage } from './storage/storage';
import { registerSystemRoutes } from './system/routes';

export interface Core {
  url: string;
  port: number;
  /** The preview proxy's port (published boxes' URLs use it). */
  proxyPort: number;
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface CoreOptions {
  engine?: ContainerEngine;
  /** false: no log; an object: pino options; omitted: the config's log level. */
  logger?: boolean | object;
  /** How long a box mutation may wait in its box's queue before answering 409 (default 60 s; tests shorten it). */
  boxQueueWaitMs?: number;
}

function instanceId(db: Db): string {
  let id = getMeta(db, 'instance_id');
  if (!id) {
    id = randomBase32(12);
    setMeta(db, 'instance_id', id);
  }
  return id;
}

/** The services, each owning its store; disposables go to `owned`. */
function createServices(
  config: CoreConfig,
  db: Db,
  engine: ContainerEngine,
  log: FastifyBaseLogger,
  owned: DisposableStore,
  options: CoreOptions,
) {
  const bus = new EventBus();
  const monitor = owned.add(new EngineMonitor(engine, log));
  const baseStore = new BaseStore(db);
  const bases = new BaseService(baseStore, engine, bus, log);
  const instance = instanceId(db);
  const boxStore = new BoxStore(db);
  const snapshotStore = new SnapshotStore(db);
  const roots = new RootImages(engine, instance, log);
  const volumeStore = new VolumeStore(db);
  const boxes = new BoxService({
    store: boxStore,
    engine,
    bases,
    bus,
    monitor,
    instanceId: instance,
    log,
    queueWaitMs: options.boxQueueWaitMs,
    snapshots: snapshotStore,
    roots,
    volumes: volumeStore,
  });
  const recreator = new BoxRecreator({ store: boxStore, engine, boxes, roots, bus, instanceId: instance, log });
  const snapshots = new SnapshotService({
    store: snapshotStore,
    boxes,
    boxStore,
    recreator,
    roots,
    engine,
    bus,
    instanceId: instance,
    log,
  });
  const baseAuthoring = new BaseAuthoring({
    store: baseStore,
    bases,
    boxes,
    snapshots: snapshotStore,
    roots,
    engine,
    bus,
    uploadLimit: config.uploadLimit,
  });
  const reconciler = owned.add(new Reconciler(boxStore, boxes, engine, monitor, bus, instance, log));
  const exec = owned.add(new ExecService({ engine, boxes, config, log }));
  const helpers = new VolumeHelpers(engine, instance, () => bases.resolveImage(DEFAULT_BASE));
  const volumes = new VolumeService({
    store: volumeStore,
    boxes,
    boxStore,
    recreator,
    engine,
    monitor,
    helpers,
    bus,
    instanceId: instance,
    dataDir: config.dataDir,
    log,
  });
  const volumeCopies = new VolumeCopies(volumes);
  const volumeBackups = new VolumeBackups(volumes, volumeCopies);
  owned.add(toDisposable(() => Promise.allSettled(volumeBackups.running.values()).then(() => undefined)));
  const files = new FileService({ engine, boxes, intents: new UploadIntentStore(db), log });
  const traffic = new ProxyTraffic();
  const serviceStore = new ServiceStore(db);
  const services = owned.add(
    new ServiceManager({
      store: serviceStore,
      boxes,
      bases,
      boxStore,
      baseStore,
      volumes: volumeStore,
      engine,
      traffic,
      agent: new BoxAgent(engine),
      bus,
      log,
    }),
  );
  volumes.guardDeletes((volume) => services.refuseDeleteOfSpecVolume(volume));
  // The copy-on-write store (storage/): started, and reconciled, first whenever the engine comes up.
  const storage = new Storage({
    db,
    engine,
    instanceId: instance,
    dataDir: config.dataDir,
    settings: { driver: config.storageDriver, sizeBytes: config.storageSize },
    defaultImage: () => bases.resolveImage(DEFAULT_BASE),
    log,
  });
  owned.add(toDisposable(() => storage.stop()));
  // Before the API answers: deployments a crash cut short are settled, so exactly one color is live (or none).
  recoverDeploymentRecords(serviceStore, boxStore, services);
  return {
    bus,
    monitor,
    bases,
    baseStore,
    baseAuthoring,
    boxStore,
    boxes,
    recreator,
    snapshots,
    reconciler,
    exec,
    files,
    volumes,
    volumeCopies,
    volumeBackups,
    traffic,
    serviceStore,
    services,
    storage,
    idempotency: new IdempotencyStore(db),
  };
}
type Services = ReturnType<typeof createServices>;

/** Each resource registers its own routes; socket routes register with the one upgrade router. */
function registerRoutes(
  app: FastifyInstance,
  s: Services,
  config: CoreConfig,
  engine: ContainerEngine,
  auth: AuthService,
  sockets: SocketRouter,
): void {
  registerSystemRoutes(app, s.monitor, engine.name, config.dataDir, () => s.storage.report());
  registerTokenRoutes(app, auth);
  registerBaseRoutes(app, s.bases, s.baseAuthoring);
  registerBoxRoutes(app, s.boxes, s.idempotency);
  registerBoxStatsRoutes(app, s.boxes, engine);
  registerSnapshotRoutes(app, s.snapshots);
  registerEventRoutes(app, s.bus);
  registerExecRoutes(app, s.exec, sockets);
  registerFileRoutes(app, s.files, config);
  registerVolumeRoutes(app, s.volumes, s.volumeCopies, s.volumeBackups);
  registerServiceRoutes(app, s.services);
}

/** Engine watching: status events, resync and the default image whenever the engine comes (back) up. */
async function startEngineWatch(s: Services, config: CoreConfig, log: FastifyBaseLogger): Promise<void> {
  s.bases.registerDefault(config.defaultBase);
  s.monitor.onChange((health) => s.bus.emit('engine.status', { up: health.up, reason: health.reason }, null));
  // In the background: nothing waits for the store before answering yet; its operations wait for the start.
  s.monitor.onUp(() => {
    void s.storage.start().catch((err) => log.warn({ err }, 'the copy-on-write store could not start'));
  });
  // Before the reconciler looks at containers: a root replacement cut short by a crash is finished.
  s.monitor.onUp(() => s.recreator.finishPending());
  // Volume work a crash cut short (boxes it paused are thawed before the reconciler looks at them).
  s.monitor.onUp(() =>
    recoverVolumes(s.volumes, s.volumeCopies).catch((err) =>
      log.warn({ err }, 'could not recover interrupted volume work'),
    ),
  );
  // Uploads a crash cut short leave a temporary file beside their target: it goes before the API answers.
  s.monitor.onUp(() =>
    s.files
      .clearInterruptedUploads()
      .then(() => undefined)
      .catch((err) => log.warn({ err }, 'could not remove interrupted uploads')),
  );
  s.monitor.onUp(async () => {
    await s.reconciler.resync();
    // In each service's queue: it waits behind a deployment under way rather than holding up the rest.
    void removeStrayColors(s.serviceStore, s.services).catch((err) =>
      log.warn({ err }, 'could not remove stray service boxes'),
    );
    void s.bases.ensureDefaultImage();
  });
  if ((await s.monitor.start()).up) {
    // Snapshots cut short by a crash are finished or forgotten, then images nothing names go.
    await s.snapshots.recoverAtStart().catch((err) => log.warn({ err }, 'could not recover interrupted snapshots'));
    const held = new Set([...s.snapshots.imagesInUse(), ...s.baseStore.list().map((b) => b.image)]);
    await s.reconciler.collectOrphanImages(held).catch((err) => log.warn({ err }, 'could not collect orphan images'));
  }
}

/** Starts the core: the same in Electron and headless. */
export async function startCore(config: CoreConfig, options: CoreOptions = {}): Promise<Core> {
  const owned = new DisposableStore();
  const db = openDatabase(config.dataDir);
  owned.add(toDisposable(() => void db.close()));
  const tokens = new TokenStore(db);
  const auth = new AuthService(tokens);
  auth.ensureAdminToken(config.dataDir);

  let port = config.port;
  const policy = loopbackPolicy(() => port, config.allowedOrigins);
  const limiter = new RateLimiter(config.rateLimit, config.rateLimit * 10);
  const app = await createHttpApp({ config, policy, auth, limiter, logger: options.logger });
  const engine = options.engine ?? new DockerEngine(undefined, { logLimitBytes: config.boxLogLimit });
  const services = createServices(config, db, engine, app.log, owned, options);
  registerRoutes(app, services, config, engine, auth, new SocketRouter(app, { policy, auth, limiter }));
  const publishing = owned.add(
    await startPublishing({
      app,
      db,
      config,
      engine,
      boxes: services.boxes,
      boxStore: services.boxStore,
      auth,
      tokens,
      bus: services.bus,
      log: app.log,
      traffic: services.traffic,
    }),
  );
  services.services.setProxyPort(publishing.port);
  publishing.service.routeServices((project, name) => services.services.route(project, name));
  await startEngineWatch(services, config, app.log);

  await app.listen({ host: config.host, port: config.port });
  port = (app.server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    proxyPort: publishing.port,
    app,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await owned.dispose();
      })()),
  };
}
