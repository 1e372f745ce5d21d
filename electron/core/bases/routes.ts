import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Base, BaseCreate, BaseList } from '../../../shared/schemas/system';
import type { BaseService } from './service';
import { problemResponses } from '../http/problem-responses';

export function registerBaseRoutes(app: FastifyInstance, bases: BaseService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get('/v1/bases', { config: { scope: 'read' }, schema: { tags: ['bases'], summary: 'List base templates', response: { 200: BaseList } } }, async () => ({
    items: await bases.list(),
  }));
  api.post(
    '/v1/bases',
    {
      config: { scope: 'admin', machineWide: true },
      schema: { tags: ['bases'], summary: 'Register an image the engine already has as a base', body: BaseCreate, response: { 201: Base, ...problemResponses(404, 409) } },
    },
    async (request, reply) => reply.code(201).send(await bases.register(request.body)),
  );
}
