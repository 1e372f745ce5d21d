import { bases } from '../bases';
import { DEFAULT_BASE } from '../bases/port';
import { defineModule } from '../module';
import { STORAGE_MIGRATIONS } from './migrations';
import type { StoragePort } from './port';
import { Storage } from './storage';

/** The copy-on-write store (storage/): started, and reconciled, first whenever the engine comes up. */
export const storage = defineModule({
  name: 'storage',
  needs: [bases],
  migrations: STORAGE_MIGRATIONS,
  idPrefixes: ['st'],
  create: (ctx, ports) =>
    new Storage({
      db: ctx.db,
      engine: ctx.engine,
      instanceId: ctx.instanceId,
      dataDir: ctx.config.dataDir,
      settings: { driver: ctx.config.storageDriver, sizeBytes: ctx.config.storageSize },
      defaultImage: () => ports.bases.resolveImage(DEFAULT_BASE),
      log: ctx.log,
    }),
  port: (store): StoragePort => store,
  engineUp: {
    // In the background: nothing waits for the store before answering yet; its operations wait for the start.
    store: (store, ctx) => {
      void store.start().catch((err) => ctx.log.warn({ err }, 'the copy-on-write store could not start'));
    },
  },
  dispose: (store) => store.stop(),
});
