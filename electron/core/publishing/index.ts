import { PUBLISHING_EVENTS } from '../../../shared/schemas/publishing';
import { auth } from '../auth';
import { boxes } from '../boxes';
import { system } from '../system';
import type { SystemPort } from '../system/port';
import { defineModule, type CoreContext } from '../module';
import type { AuthPort } from '../auth/port';
import type { BoxesPort } from '../boxes/port';
import { BoxAgent } from './box-connector';
import { ProxyFront } from './edge';
import type { PublishingPort } from './port';
import { PreviewAuth } from './preview-auth';
import { PreviewProxy } from './proxy-server';
import { ProxyTraffic } from './proxy-traffic';
import { installPreviewOriginGuard, registerPublishingRoutes } from './routes';
import { PublishingService } from './service';
import { SessionCookies, sessionKey } from './session-cookie';
import { SignInLinks } from './sign-in-links';

function makePublishing(ctx: CoreContext, boxes: BoxesPort, auth: AuthPort, system: SystemPort) {
  const links = new SignInLinks();
  const service = new PublishingService({ boxes, bus: ctx.bus, links });
  system.reportProxyPort(() => service.port);
  const traffic = new ProxyTraffic();
  const access = new PreviewAuth(auth, new SessionCookies(sessionKey(ctx.db)), links);
  const timeouts = {
    connectMs: ctx.config.proxyConnectTimeout * 1000,
    headersMs: ctx.config.proxyHeaderTimeout * 1000,
  };
  const proxy = new PreviewProxy(service, access, ctx.engine, ctx.log, traffic, timeouts);
  const front = new ProxyFront({
    service,
    proxy,
    subscribe: (listener) => ctx.bus.subscribe(listener),
    touch: (boxId) => boxes.touch(boxId),
    beforePause: (listener) => boxes.beforePause(listener),
    afterUpdate: (listener) => boxes.afterUpdate(listener),
    dataDir: ctx.config.dataDir,
    timeouts,
    log: ctx.log,
  });
  system.reportProxyEdge(() => front.info);
  const port: PublishingPort = {
    get proxyPort() {
      return service.port;
    },
    traffic,
    newAgent: () => new BoxAgent(ctx.engine),
    routeServices: (services) => service.routeServices(services),
    signInLink: (target, auth, tokenId) => service.linkFor(target, auth, tokenId),
    publish: (project, name, input) => service.publish(project, name, input),
  };
  return { service, proxy, front, port };
}

/**
 * Publishing: a box's preview URL and domains, and the preview proxy (a second HTTP server on
 * --proxy-port) that routes by Host to published boxes and to services' live boxes. Where the
 * edge is built, it serves the port and answers ready public routes itself (edge.ts).
 */
export const publishing = defineModule({
  name: 'publishing',
  needs: [boxes, auth, system],
  migrations: [],
  events: PUBLISHING_EVENTS,
  create: (ctx, ports) => makePublishing(ctx, ports.boxes, ports.auth, ports.system),
  port: (p) => p.port,
  routes: ({ app }, p) => {
    installPreviewOriginGuard(app, p.service);
    registerPublishingRoutes(app, p.service);
  },
  // The proxy listens before the API answers: published URLs carry the port it got.
  start: async (p, ctx) => p.service.setProxyPort(await p.front.start(ctx.config.host, ctx.config.proxyPort)),
  dispose: async (p) => {
    await p.front.dispose();
    await p.proxy.dispose();
    p.service.dispose();
  },
});
