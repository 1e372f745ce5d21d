import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { AuthService } from './auth/auth-service';
import { installAuthGuard } from './auth/guard';
import { RateLimiter } from './auth/rate-limiter';
import { registerTokenRoutes } from './auth/routes';
import { TokenStore } from './auth/token-store';
import { registerBaseRoutes } from './bases/routes';
import { BaseService } from './bases/service';
import { BaseStore } from './bases/store';
import { Reconciler } from './boxes/reconciler';
import { registerBoxRoutes } from './boxes/routes';
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
import { installHardening, loopbackPolicy } from './http/hardening';
import { installErrorHandling } from './http/problems';
import { installValidators } from './http/validation';
import { startPublishing } from './publishing/publishing';
import { randomBase32 } from './ids';
import { DisposableStore, toDisposable } from './lifetime';
import { CORE_VERSION, registerSystemRoutes } from './system/routes';
import { registerStaticUi } from './ui/static-routes';

export interface Core {
  url: string;
  port: number;
  /** The preview proxy's port (published boxes' URLs use it). */
  proxyPort: number;
  app: FastifyInstance;
  close(): Promise<void>;
}

export const JSON_BODY_LIMIT = 1024 * 1024;

function instanceId(db: Db): string {
  let id = getMeta(db, 'instance_id');
  if (!id) {
    id = randomBase32(12);
    setMeta(db, 'instance_id', id);
  }
  return id;
}

/** Starts the core: the same in Electron and headless. */
export async function startCore(config: CoreConfig, options: { engine?: ContainerEngine; logger?: boolean | object; sqliteBinding?: string } = {}): Promise<Core> {
  const owned = new DisposableStore();
  const db = openDatabase(config.dataDir, { nativeBinding: options.sqliteBinding });
  owned.add(toDisposable(() => void db.close()));
  const tokens = new TokenStore(db);
  const auth = new AuthService(tokens);
  auth.ensureAdminToken(config.dataDir);

  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    bodyLimit: JSON_BODY_LIMIT,
    requestIdHeader: false,
    forceCloseConnections: true,
    return503OnClosing: true,
  });
  const log: FastifyBaseLogger = app.log;
  let port = config.port;

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Boxdesk API', version: CORE_VERSION, description: 'Local sandbox manager. Every error is application/problem+json with a stable code.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  installValidators(app);
  installErrorHandling(app);
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT }, (_request, body, done) => {
    // An empty body is no body (POST .../stop with a Content-Type but nothing after it).
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  installHardening(app, loopbackPolicy(() => port, config.allowedOrigins));
  const limiter = new RateLimiter(config.rateLimit, config.rateLimit * 10);
  installAuthGuard(app, auth, limiter);

  const engine = options.engine ?? new DockerEngine();
  const bus = new EventBus();
  const monitor = owned.add(new EngineMonitor(engine, log));
  const bases = new BaseService(new BaseStore(db), engine, bus, log);
  const instance = instanceId(db);
  const boxStore = new BoxStore(db);
  const boxes = new BoxService({ store: boxStore, engine, bases, bus, monitor, instanceId: instance, log });
  const reconciler = owned.add(new Reconciler(boxStore, boxes, engine, monitor, bus, instance, log));
  const exec = owned.add(new ExecService({ engine, boxes, config, log }));
  const publishing = owned.add(await startPublishing({ app, db, config, engine, boxes, boxStore, auth, tokens, bus, log }));

  registerSystemRoutes(app, monitor, engine.name);
  registerTokenRoutes(app, auth);
  registerBaseRoutes(app, bases);
  registerBoxRoutes(app, boxes);
  registerEventRoutes(app, bus);
  registerExecRoutes(app, exec, auth, loopbackPolicy(() => port, config.allowedOrigins), limiter);
  if (config.uiDir) registerStaticUi(app, config.uiDir);

  bases.registerDefault(config.defaultBase);
  monitor.onChange((health) => bus.emit('engine.status', { up: health.up, reason: health.reason }, null));
  monitor.onUp(async () => {
    await reconciler.resync();
    void bases.ensureDefaultImage();
  });
  if ((await monitor.start()).up) await reconciler.collectOrphanImages().catch((err) => log.warn({ err }, 'could not collect orphan fork images'));

  await app.listen({ host: config.host, port: config.port });
  port = (app.server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    url,
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
