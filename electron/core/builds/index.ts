import path from 'node:path';
import { BUILD_EVENTS } from '../../../shared/schemas/builds';
import { bases } from '../bases';
import { boxes } from '../boxes';
import { defineModule } from '../module';
import { BUILDS_MIGRATIONS } from './migrations';
import { registerBuildRoutes } from './routes';
import type { BuildsPort } from './port';
import { BuildService } from './service';
import { BuildStore } from './store';

/** Bases built from a Dockerfile by the engine's builder (after boxes: built images carry their labels). */
export const builds = defineModule({
  name: 'builds',
  needs: [bases, boxes],
  migrations: BUILDS_MIGRATIONS,
  events: BUILD_EVENTS,
  idPrefixes: ['bld'],
  create: (ctx, ports) => {
    const service = new BuildService({
      store: new BuildStore(ctx.db),
      bases: ports.bases,
      boxes: ports.boxes,
      engine: ctx.engine,
      bus: ctx.bus,
      log: ctx.log,
      uploadLimit: ctx.config.uploadLimit,
      spoolDir: path.join(ctx.config.dataDir, 'build-contexts'),
    });
    service.recover();
    return service;
  },
  port: (service): BuildsPort => service,
  routes: ({ app }, service) => registerBuildRoutes(app, service),
  dispose: (service) => service.dispose(),
});
