import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BaseList } from '../../../shared/schemas/system';
import type { BaseService } from './service';

const tags = ['bases'];

/** GET /v1/bases: the catalog. */
export function registerBaseRoutes(app: FastifyInstance, bases: BaseService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/v1/bases',
    { config: { scope: 'read' }, schema: { tags, summary: 'List base templates', response: { 200: BaseList } } },
    async () => ({
      items: await bases.list(),
    }),
  );
}
