import { SNAPSHOT_EVENTS } from '../../../shared/schemas/snapshots';
import { bases } from '../bases';
import { boxes } from '../boxes';
import { defineModule } from '../module';
import { SNAPSHOTS_MIGRATIONS } from './migrations';
import type { SnapshotsPort } from './port';
import { registerSnapshotRoutes } from './routes';
import { SNAPSHOT_ID_PREFIX, SnapshotService } from './service';
import { SnapshotStore } from './store';

/** Snapshots of a box's root, restores and forks from them. */
export const snapshots = defineModule({
  name: 'snapshots',
  needs: [boxes, bases],
  migrations: SNAPSHOTS_MIGRATIONS,
  events: SNAPSHOT_EVENTS,
  idPrefixes: [SNAPSHOT_ID_PREFIX],
  create: (ctx, ports) => {
    const service = new SnapshotService({
      store: new SnapshotStore(ctx.db),
      boxes: ports.boxes,
      bases: ports.bases,
      engine: ctx.engine,
      bus: ctx.bus,
      instanceId: ctx.instanceId,
      log: ctx.log,
    });
    ports.boxes.useForkSnapshots(service.forkSnapshots());
    ports.boxes.holdImages(() => service.imagesInUse());
    return service;
  },
  port: (service): SnapshotsPort => service,
  routes: ({ app }, service) => registerSnapshotRoutes(app, service),
  atStart: {
    // Snapshots cut short by a crash are finished or forgotten (before images nothing names go).
    recover: (service, ctx) =>
      service.recoverAtStart().catch((err) => ctx.log.warn({ err }, 'could not recover interrupted snapshots')),
  },
});
