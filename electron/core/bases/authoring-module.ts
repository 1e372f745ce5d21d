import { BASE_EVENTS } from '../../../shared/schemas/system';
import { boxes } from '../boxes';
import { defineModule } from '../module';
import { snapshots } from '../snapshots';
import { BaseAuthoring } from './authoring';
import { bases } from './index';
import { registerBaseAuthoringRoutes } from './authoring-routes';

/**
 * Making bases from an image, a snapshot, a box's root or a tar, and deleting them: it needs boxes
 * and snapshots, which need the catalog, so it is a module of its own that comes after them.
 */
export const baseAuthoring = defineModule({
  name: 'base-authoring',
  needs: [bases, boxes, snapshots],
  migrations: [],
  events: {
    'base.created': BASE_EVENTS['base.created'],
    'base.deleted': BASE_EVENTS['base.deleted'],
    'base.import': BASE_EVENTS['base.import'],
  },
  create: (ctx, ports) =>
    new BaseAuthoring({
      bases: ports.bases,
      boxes: ports.boxes,
      snapshots: ports.snapshots,
      engine: ctx.engine,
      bus: ctx.bus,
      uploadLimit: ctx.config.uploadLimit,
    }),
  port: () => undefined,
  routes: ({ app }, authoring) => registerBaseAuthoringRoutes(app, authoring),
});
