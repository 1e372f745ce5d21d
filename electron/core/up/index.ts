import path from 'node:path';
import { boxes } from '../boxes';
import { builds } from '../builds';
import { exec } from '../exec';
import { files } from '../files';
import { defineModule } from '../module';
import { publishing } from '../publishing';
import { UP_MIGRATIONS } from './migrations';
import { registerUpRoutes } from './routes';
import { UpService } from './service';
import { UpStore } from './store';

/** `box up`: a box from a project folder (its devcontainer.json), through builds, files, exec and publishing. */
export const up = defineModule({
  name: 'up',
  needs: [boxes, builds, files, exec, publishing],
  migrations: UP_MIGRATIONS,
  create: (ctx, ports) => {
    const spoolDir = path.join(ctx.config.dataDir, 'up-uploads');
    const service = new UpService({
      store: new UpStore(ctx.db),
      boxes: ports.boxes,
      builds: ports.builds,
      files: ports.files,
      exec: ports.exec,
      publishing: ports.publishing,
      engine: ctx.engine,
      bus: ctx.bus,
      uploadLimit: ctx.config.uploadLimit,
      spoolDir,
    });
    service.clearSpool();
    return service;
  },
  port: () => undefined,
  routes: ({ app }, service) => registerUpRoutes(app, service),
  dispose: (service) => service.dispose(),
});
