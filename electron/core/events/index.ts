import { defineModule } from '../module';
import { registerEventRoutes } from './routes';

/** GET /v1/events: the bus (events/event-bus.ts, made by the core for every module) as server-sent events. */
export const events = defineModule({
  name: 'events',
  needs: [],
  migrations: [],
  create: (ctx) => ctx.bus,
  port: () => undefined,
  routes: ({ app }, bus) => registerEventRoutes(app, bus),
});
