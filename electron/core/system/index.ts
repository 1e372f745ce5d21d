import { ENGINE_EVENTS, type PoolInfo } from '../../../shared/schemas/system';
import { defineModule } from '../module';
import { bases } from '../bases';
import { storage } from '../storage';
import type { SystemPort } from './port';
import { registerSystemRoutes, type SystemSources } from './routes';

/** /version, /healthz, /v1/system and the OpenAPI document; engine.status events as the engine comes and goes. */
export const system = defineModule({
  name: 'system',
  needs: [storage, bases],
  migrations: [],
  events: ENGINE_EVENTS,
  create: (ctx, ports) => {
    ctx.monitor.onChange((health) => ctx.bus.emit('engine.status', { up: health.up, reason: health.reason }, null));
    let proxyPort = () => 0;
    let pools: () => PoolInfo[] = () => [];
    const sources: SystemSources = {
      monitor: ctx.monitor,
      engineName: ctx.engine.name,
      endpoint: ctx.engine.endpoint,
      dataDir: ctx.config.dataDir,
      agent: ctx.agent,
      storage: () => ports.storage.measuredReport(),
      defaultBase: () => ports.bases.defaultBase(),
      proxyPort: () => proxyPort(),
      pools: () => pools(),
    };
    const port: SystemPort = {
      reportProxyPort: (read) => (proxyPort = read),
      reportPools: (read) => (pools = read),
    };
    return { sources, port };
  },
  port: (s) => s.port,
  routes: ({ app }, s) => registerSystemRoutes(app, s.sources),
});
