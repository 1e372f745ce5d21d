import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { auth } from './auth';
import type { CoreConfig } from './config';
import { getMeta, openDatabase, setMeta, type Db } from './db/database';
import type { ContainerEngine } from './engine/container-engine';
import type { EngineMonitor } from './engine/engine-monitor';
import { LOCAL_REGION, makeRegions } from './engine/regions/make-regions';
import { boxes } from './boxes';
import { BOX_ID_PREFIX } from './boxes/box-create';
import { LABELS } from './boxes/container-spec';
import { EventBus } from './events/event-bus';
import { createHttpApp } from './http/app';
import { installAuthGuard } from './http/auth-guard';
import { loopbackPolicy } from './http/hardening';
import { RateLimiter } from './http/rate-limiter';
import { SocketRouter } from './http/socket-router';
import { randomBase32 } from './ids';
import { DisposableStore, toDisposable } from './lifetime';
import { announceListening } from './listening';
import type { CoreContext } from './module';
import { ModuleSet } from './module-runner';
import { modules } from './modules';
import type { EgressConnection } from './networks/egress-proxy';
import { publishing } from './publishing';

export interface Core {
  url: string;
  port: number;
  /** The preview proxy's port (published boxes' URLs use it). */
  proxyPort: number;
  app: FastifyInstance;
  /** Calls `listener` with each connection the egress proxy makes or refuses for a box; returns its removal. */
  onEgress(listener: (connection: EgressConnection) => void): () => void;
  close(): Promise<void>;
}

export interface CoreOptions {
  /** The one engine, as the region `local` (tests give their own). */
  engine?: ContainerEngine;
  /** Several engines, each a region, the first the default (tests); over `engine` and --engine. */
  engines?: { name: string; engine: ContainerEngine }[];
  /** false: no log; an object: pino options; omitted: the config's log level. */
  logger?: boolean | object;
  /** How long a box mutation may wait in its box's queue before answering 409 (default 60 s; tests shorten it). */
  boxQueueWaitMs?: number;
  /** How deep a box's root image may grow before it is flattened (default MAX_LAYERS; tests lower it). */
  maxImageLayers?: number;
}

function instanceId(db: Db): string {
  let id = getMeta(db, 'instance_id');
  if (!id) {
    id = randomBase32(12);
    setMeta(db, 'instance_id', id);
  }
  return id;
}

/**
 * Engine watching: whenever the engine comes (back) up the modules' engine-up phases run; if it
 * is up at start, their start phases run once too, before the API answers.
 */
async function watchEngine(monitor: EngineMonitor, running: ModuleSet): Promise<void> {
  monitor.onUp(() => running.engineUp());
  if ((await monitor.start()).up) await running.atStart();
}

/**
 * Starts the core, the same in Electron and headless: the database with every module's tables,
 * the modules made in order (modules.ts), the token guard, their routes, their start, the engine
 * watched, then the API listens. A start that fails closes what it made.
 */
export async function startCore(config: CoreConfig, options: CoreOptions = {}): Promise<Core> {
  const owned = new DisposableStore();
  const db = openDatabase(config.dataDir, modules);
  owned.add(toDisposable(() => void db.close()));
  let port = config.port;
  const policy = loopbackPolicy(() => port, config.allowedOrigins);
  const limiter = new RateLimiter(config.rateLimit, config.rateLimit * 10);
  let app: FastifyInstance | null = null;
  try {
    app = await createHttpApp({ config, policy, logger: options.logger });
    const engines = options.engines ?? (options.engine ? [{ name: LOCAL_REGION, engine: options.engine }] : undefined);
    const setup = owned.add(
      await makeRegions(
        config,
        engines,
        {
          // Boxes, and warm-pool containers made as boxes (their id is the box's-to-be); helpers carry none.
          idOf: (labels) => (labels[LABELS.id]?.startsWith(`${BOX_ID_PREFIX}_`) ? labels[LABELS.id]! : null),
          labelsOf: (boxId) => ({ [LABELS.id]: boxId }),
        },
        app.log,
      ),
    );
    const { engine, monitor, regions } = setup;
    const bus = new EventBus();
    bus.declareKinds(modules.flatMap((m) => Object.keys(m.events)));
    const ctx: CoreContext = {
      config,
      db,
      engine,
      regions,
      agent: setup.agent,
      agentHub: setup.agentHub,
      monitor,
      bus,
      log: app.log,
      instanceId: instanceId(db),
      boxQueueWaitMs: options.boxQueueWaitMs,
      maxImageLayers: options.maxImageLayers,
    };
    const running = new ModuleSet(modules, ctx);
    owned.add(toDisposable(() => running.dispose()));
    const tokens = running.portOf(auth);
    installAuthGuard(app, tokens, limiter);
    running.registerRoutes({ app, sockets: new SocketRouter(app, { policy, auth: tokens, limiter }) });
    await running.start();
    await watchEngine(monitor, running);
    await setup.watchOthers(() => running.engineUp());
    await app.listen({ host: config.host, port: config.port });
    port = (app.server.address() as AddressInfo).port;
    const handle = coreHandle(app, config, port, running.portOf(publishing).proxyPort, owned);
    handle.onEgress = (listener) => running.portOf(boxes).egress.onConnection(listener);
    owned.add(announceListening(config.dataDir, handle.url, handle.proxyPort));
    return handle;
  } catch (err) {
    await app?.close();
    await owned.dispose();
    throw err;
  }
}

function coreHandle(
  app: FastifyInstance,
  config: CoreConfig,
  port: number,
  proxyPort: number,
  owned: DisposableStore,
): Core {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    proxyPort,
    app,
    onEgress: () => () => undefined,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await owned.dispose();
      })()),
  };
}
