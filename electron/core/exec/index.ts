import { boxes } from '../boxes';
import { defineModule } from '../module';
import { registerExecRoutes } from './routes';
import { ExecService, SESSION_ID_PREFIX } from './service';

/** Commands in a box: HTTP exec to completion, and exec and console sessions over WebSockets. */
export const exec = defineModule({
  name: 'exec',
  needs: [boxes],
  migrations: [],
  idPrefixes: [SESSION_ID_PREFIX],
  create: (ctx, ports) => new ExecService({ engine: ctx.engine, boxes: ports.boxes, config: ctx.config, log: ctx.log }),
  port: () => undefined,
  routes: ({ app, sockets }, service) => registerExecRoutes(app, service, sockets),
  dispose: (service) => service.dispose(),
});
