import type { FastifyInstance } from 'fastify';
import { BaseList } from '../../../shared/schemas/system';
import { resourceRoutes } from '../http/resource-routes';
import type { BaseService } from './service';

/** GET /v1/bases: the catalog. */
export function registerBaseRoutes(app: FastifyInstance, bases: BaseService): void {
  const { api, read } = resourceRoutes(app, 'bases');
  api.get('/v1/bases', read('List base templates', { response: { 200: BaseList } }), async () => ({
    items: await bases.list(),
  }));
}
