import { boxes } from '../boxes';
import { defineModule } from '../module';
import { FILES_MIGRATIONS } from './migrations';
import { registerFileRoutes } from './routes';
import type { FilesPort } from './port';
import { FileService } from './service';
import { UploadIntentStore } from './upload-intents';

/** A box's files through the engine's archive calls, running or stopped; uploads never leave half a file. */
export const files = defineModule({
  name: 'files',
  needs: [boxes],
  migrations: FILES_MIGRATIONS,
  idPrefixes: ['upl'],
  create: (ctx, ports) => ({
    service: new FileService({
      engine: ctx.engine,
      boxes: ports.boxes,
      intents: new UploadIntentStore(ctx.db),
      log: ctx.log,
    }),
    config: ctx.config,
  }),
  port: (f): FilesPort => ({ mkdir: (...args) => f.service.mkdir(...args) }),
  routes: ({ app }, f) => registerFileRoutes(app, f.service, f.config),
  engineUp: {
    // Uploads a crash cut short leave a temporary file beside their target: it goes before the API answers.
    repair: (f, ctx) =>
      f.service
        .clearInterruptedUploads()
        .then(() => undefined)
        .catch((err) => ctx.log.warn({ err }, 'could not remove interrupted uploads')),
  },
});
