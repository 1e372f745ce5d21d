import { BASE_EVENTS } from '../../../shared/schemas/system';
import { defineModule } from '../module';
import { BASES_MIGRATIONS } from './migrations';
import type { BaseCatalogWrites, BasesPort } from './port';
import { registerBaseRoutes } from './routes';
import { BaseService } from './service';
import { BaseStore } from './store';

/**
 * The base catalog: what every box starts from, so it comes before boxes. The default base is
 * registered at start and its image pulled once the engine is up.
 */
export const bases = defineModule({
  name: 'bases',
  needs: [],
  migrations: BASES_MIGRATIONS,
  events: { 'base.pull': BASE_EVENTS['base.pull'], 'base.updated': BASE_EVENTS['base.updated'] },
  create: (ctx): BaseService => {
    const service = new BaseService(new BaseStore(ctx.db), ctx.engine, ctx.bus, ctx.log);
    service.registerDefault(ctx.config.defaultBase, ctx.config.defaultBaseGiven, ctx.config.defaultWarm);
    return service;
  },
  port: (service): BasesPort & BaseCatalogWrites => service,
  routes: ({ app }, service) => registerBaseRoutes(app, service),
  engineUp: { settled: (service) => void service.ensureDefaultImage() },
});
