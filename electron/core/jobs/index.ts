import { JOB_EVENTS } from '../../../shared/schemas/jobs';
import { boxes } from '../boxes';
import { ProcessSweeper } from '../engine/process-sweeper';
import { defineModule } from '../module';
import type { JobsPort } from './port';
import { JOBS_MIGRATIONS } from './migrations';
import { registerJobRoutes } from './routes';
import { JOB_ID_PREFIX, JobService } from './service';
import { JobStore } from './store';

/** Background commands: their output kept in a ring in the box, found again after a core restart. */
export const jobs = defineModule({
  name: 'jobs',
  needs: [boxes],
  migrations: JOBS_MIGRATIONS,
  events: JOB_EVENTS,
  idPrefixes: [JOB_ID_PREFIX],
  create: (ctx, ports) =>
    new JobService({
      engine: ctx.engine,
      boxes: ports.boxes,
      store: new JobStore(ctx.db),
      sweeper: new ProcessSweeper(ctx.engine),
      bus: ctx.bus,
      log: ctx.log,
    }),
  port: (service): JobsPort => ({ start: (project, name, req) => service.start(project, name, req) }),
  routes: ({ app }, service) => registerJobRoutes(app, service),
  engineUp: {
    // Jobs that ran on while the core was away are watched again once the boxes agree with the engine.
    settled: (service, ctx) =>
      service.watchRunning().catch((err) => ctx.log.warn({ err }, 'could not look for running jobs')),
  },
  dispose: (service) => service.dispose(),
});
