import { VOLUME_EVENTS } from '../../../shared/schemas/volumes';
import { bases } from '../bases';
import { DEFAULT_BASE } from '../bases/port';
import { boxes } from '../boxes';
import { defineModule } from '../module';
import { storage } from '../storage';
import { VolumeBackups } from './backups';
import { VolumeCopies } from './copies';
import { VolumeHelpers } from './helpers';
import { VOLUMES_MIGRATIONS } from './migrations';
import { mountedVolumes, requireVolumes } from './mounted-volumes';
import type { VolumesPort } from './port';
import { recoverVolumes } from './recovery';
import { registerVolumeRoutes } from './routes';
import { VOLUME_ID_PREFIXES, VolumeService } from './service';
import { VolumeStore } from './store';
import { VolumeItems } from './volume-items';

/** Data volumes: items of the copy-on-write store that outlive boxes, their snapshots, clones, backups and restores. */
export const volumes = defineModule({
  name: 'volumes',
  needs: [boxes, bases, storage],
  migrations: VOLUMES_MIGRATIONS,
  events: VOLUME_EVENTS,
  idPrefixes: Object.values(VOLUME_ID_PREFIXES),
  create: (ctx, ports) => {
    const store = new VolumeStore(ctx.db);
    const service = new VolumeService({
      store,
      boxes: ports.boxes,
      engine: ctx.engine,
      monitor: ctx.monitor,
      helpers: new VolumeHelpers(ctx.engine, ctx.instanceId, () => ports.bases.resolveImage(DEFAULT_BASE)),
      items: new VolumeItems(ports.storage, ctx.engine),
      regions: ctx.regions,
      bus: ctx.bus,
      instanceId: ctx.instanceId,
      dataDir: ctx.config.dataDir,
      log: ctx.log,
    });
    ports.boxes.useVolumes(mountedVolumes(store));
    const copies = new VolumeCopies(service);
    return { service, copies, backups: new VolumeBackups(service, copies) };
  },
  port: ({ service }): VolumesPort => ({
    requireVolumes: (project, mounts) => requireVolumes(service.store, project, mounts),
    guardDeletes: (guard) => service.guardDeletes(guard),
  }),
  routes: ({ app }, v) => registerVolumeRoutes(app, v.service, v.copies, v.backups),
  engineUp: {
    // Volume work a crash cut short (boxes it paused are thawed before the reconciler looks at them).
    repair: (v, ctx) =>
      recoverVolumes(v.service, v.copies).catch((err) =>
        ctx.log.warn({ err }, 'could not recover interrupted volume work'),
      ),
  },
  dispose: (v) => Promise.allSettled(v.backups.running.values()).then(() => undefined),
});
