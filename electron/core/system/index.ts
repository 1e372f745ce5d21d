import { ENGINE_EVENTS } from '../../../shared/schemas/system';
import { defineModule } from '../module';
import { bases } from '../bases';
import { storage } from '../storage';
import { registerSystemRoutes } from './routes';

/** /version, /healthz, /v1/system and the OpenAPI document; engine.status events as the engine comes and goes. */
export const system = defineModule({
  name: 'system',
  needs: [storage, bases],
  migrations: [],
  events: ENGINE_EVENTS,
  create: (ctx, ports) => {
    ctx.monitor.onChange((health) => ctx.bus.emit('engine.status', { up: health.up, reason: health.reason }, null));
    return {
      monitor: ctx.monitor,
      engineName: ctx.engine.name,
      dataDir: ctx.config.dataDir,
      storage: async () => ports.storage.report(),
      defaultBase: () => ports.bases.defaultBase(),
    };
  },
  port: () => undefined,
  routes: ({ app }, s) => registerSystemRoutes(app, s),
});
