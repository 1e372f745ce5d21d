import { SERVICE_EVENTS } from '../../../shared/schemas/services';
import { bases } from '../bases';
import { boxes } from '../boxes';
import { defineModule } from '../module';
import { publishing } from '../publishing';
import { volumes } from '../volumes';
import { SERVICES_MIGRATIONS } from './migrations';
import { recoverDeploymentRecords, removeStrayColors } from './recovery';
import { registerServiceRoutes } from './routes';
import { SERVICE_ID_PREFIXES, ServiceManager } from './service';
import { ServiceStore } from './store';

/** Services: blue/green deployments of boxes behind one URL of the preview proxy. */
export const services = defineModule({
  name: 'services',
  needs: [boxes, bases, volumes, publishing],
  migrations: SERVICES_MIGRATIONS,
  events: SERVICE_EVENTS,
  idPrefixes: Object.values(SERVICE_ID_PREFIXES),
  create: (ctx, ports) => {
    const store = new ServiceStore(ctx.db);
    const manager = new ServiceManager({
      store,
      boxes: ports.boxes,
      bases: ports.bases,
      volumes: ports.volumes,
      publishing: ports.publishing,
      engine: ctx.engine,
      bus: ctx.bus,
      log: ctx.log,
    });
    ports.volumes.guardDeletes((volume) => manager.refuseDeleteOfSpecVolume(volume));
    ports.publishing.routeServices((project, name) => manager.route(project, name));
    return { store, manager, boxes: ports.boxes, signInLink: ports.publishing.signInLink };
  },
  port: () => undefined,
  routes: ({ app }, s) => registerServiceRoutes(app, s.manager, s.signInLink),
  // Before the API answers: deployments a crash cut short are settled, so exactly one color is live (or none).
  start: (s) => recoverDeploymentRecords(s.store, s.boxes, s.manager),
  engineUp: {
    // In each service's queue: it waits behind a deployment under way rather than holding up the rest.
    settled: (s, ctx) => {
      void removeStrayColors(s.store, s.manager).catch((err) =>
        ctx.log.warn({ err }, 'could not remove stray service boxes'),
      );
    },
  },
  dispose: (s) => s.manager.dispose(),
});
