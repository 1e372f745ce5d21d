import type { FastifyInstance } from 'fastify';
import { BaseParams } from '../../../shared/schemas/snapshots';
import { Base, BaseList, BaseUpdate } from '../../../shared/schemas/system';
import { problemResponses } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import type { BaseService } from './service';

/** GET /v1/bases: the catalog; PUT /v1/bases/{name}: a base's warm count (admin). */
export function registerBaseRoutes(app: FastifyInstance, bases: BaseService): void {
  const { api, read, options } = resourceRoutes(app, 'bases');
  api.get('/v1/bases', read('List base templates', { response: { 200: BaseList } }), async () => ({
    items: await bases.list(),
  }));

  api.put(
    '/v1/bases/:name',
    options({ scope: 'admin', machineWide: true }, "Set a base's warm count (its warm pool)", {
      description:
        'warm (0-32) paused containers of this base are kept ready; a create of the base that fits takes one instead of making a container (docs/api.md "Warm pool"). The pool fills, or drains, in the background; GET /v1/system reports it.',
      params: BaseParams,
      body: BaseUpdate,
      response: { 200: Base, ...problemResponses(404) },
    }),
    async (request) => bases.update(request.params.name, request.body),
  );
}
