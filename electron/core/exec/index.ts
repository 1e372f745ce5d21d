import { boxes } from '../boxes';
import { jobs } from '../jobs';
import { defineModule } from '../module';
import { registerExecRoutes } from './routes';
import type { ExecPort } from './port';
import { ExecService, SESSION_ID_PREFIX } from './service';

/** Commands in a box: HTTP exec to completion (or as a job), and exec and console sessions over WebSockets. */
export const exec = defineModule({
  name: 'exec',
  needs: [boxes, jobs],
  migrations: [],
  idPrefixes: [SESSION_ID_PREFIX],
  create: (ctx, ports) => ({
    service: new ExecService({ engine: ctx.engine, boxes: ports.boxes, config: ctx.config, log: ctx.log }),
    jobs: ports.jobs,
  }),
  port: (e): ExecPort => ({ run: (...args) => e.service.run(...args) }),
  routes: ({ app, sockets }, e) => registerExecRoutes(app, e.service, e.jobs, sockets),
  dispose: (e) => e.service.dispose(),
});
