import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/auth-service';
import type { TokenStore } from '../auth/token-store';
import type { BoxService } from '../boxes/service';
import type { BoxStore } from '../boxes/store';
import type { CoreConfig } from '../config';
import type { Db } from '../db/database';
import type { ContainerEngine } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import type { Disposable } from '../lifetime';
import { PreviewAuth } from './preview-auth';
import { PreviewProxy } from './proxy-server';
import type { ProxyTraffic } from './proxy-traffic';
import { installPreviewOriginGuard, registerPublishingRoutes } from './routes';
import { PublishingService } from './service';
import { SessionCookies, sessionKey } from './session-cookie';
import { PublishingStore } from './store';

export interface PublishingDeps {
  app: FastifyInstance;
  db: Db;
  config: CoreConfig;
  engine: ContainerEngine;
  boxes: BoxService;
  boxStore: BoxStore;
  auth: AuthService;
  tokens: TokenStore;
  bus: EventBus;
  log: FastifyBaseLogger;
  /** In-flight requests per target, shared with services' drains. */
  traffic: ProxyTraffic;
}

/** Wires publishing into the core: the routes, the Origin guard, and the proxy's listener on --proxy-port. */
export async function startPublishing(
  deps: PublishingDeps,
): Promise<Disposable & { port: number; service: PublishingService }> {
  const service = new PublishingService({
    boxes: deps.boxes,
    boxStore: deps.boxStore,
    store: new PublishingStore(deps.db),
    bus: deps.bus,
  });
  installPreviewOriginGuard(deps.app, service);
  registerPublishingRoutes(deps.app, service);
  const access = new PreviewAuth(deps.auth, deps.tokens, new SessionCookies(sessionKey(deps.db)));
  const proxy = new PreviewProxy(service, access, deps.engine, deps.log, deps.traffic, {
    connectMs: deps.config.proxyConnectTimeout * 1000,
    headersMs: deps.config.proxyHeaderTimeout * 1000,
  });
  const port = await proxy.listen(deps.config.host, deps.config.proxyPort);
  service.setProxyPort(port);
  return {
    port,
    service,
    dispose: async () => {
      await proxy.dispose();
      service.dispose();
    },
  };
}
