import { ENGINE_EVENTS, type PoolInfo, type ProxyEdgeInfo } from '../../../shared/schemas/system';
import { defineModule } from '../module';
import { bases } from '../bases';
import { storage } from '../storage';
import type { SystemPort } from './port';
import { registerRegionRoutes } from './region-routes';
import { registerSystemRoutes, type SystemSources } from './routes';

/** /version, /healthz, /v1/system and the OpenAPI document; engine.status events as the engine comes and goes. */
export const system = defineModule({
  name: 'system',
  needs: [storage, bases],
  migrations: [],
  events: ENGINE_EVENTS,
  create: (ctx, ports) => {
    ctx.monitor.onChange((health) => ctx.bus.emit('engine.status', { up: health.up, reason: health.reason }, null));
    for (const region of ctx.regions.all.slice(1))
      region.monitor.onChange((health) =>
        ctx.bus.emit('engine.status', { up: health.up, reason: health.reason, region: region.name }, null),
      );
    let proxyPort = () => 0;
    let proxyEdge = (): ProxyEdgeInfo => ({ available: false, version: null, requests: 0, bytes: 0 });
    let pools: () => PoolInfo[] = () => [];
    let regionBoxes = () => new Map<string, number>();
    const sources: SystemSources = {
      monitor: ctx.monitor,
      engineName: ctx.engine.name,
      endpoint: ctx.engine.endpoint,
      dataDir: ctx.config.dataDir,
      agent: ctx.agent,
      storage: () => ports.storage.measuredReport(),
      defaultBase: () => ports.bases.defaultBase(),
      proxyPort: () => proxyPort(),
      proxyEdge: () => proxyEdge(),
      pools: () => pools(),
    };
    const port: SystemPort = {
      reportProxyPort: (read) => (proxyPort = read),
      reportProxyEdge: (read) => (proxyEdge = read),
      reportPools: (read) => (pools = read),
      reportRegionBoxes: (read) => (regionBoxes = read),
    };
    return { sources, port, regions: { regions: ctx.regions, boxes: () => regionBoxes() } };
  },
  port: (s) => s.port,
  routes: ({ app }, s) => {
    registerSystemRoutes(app, s.sources);
    registerRegionRoutes(app, s.regions);
  },
});
