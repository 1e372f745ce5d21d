import type { FastifyInstance } from 'fastify';
import { Base, BaseCreate, BaseList } from '../../../shared/schemas/system';
import type { BaseService } from './service';

export function registerBaseRoutes(app: FastifyInstance, bases: BaseService): void {
  app.get('/v1/bases', { config: { scope: 'read' }, schema: { tags: ['bases'], summary: 'List base templates', response: { 200: BaseList } } }, async () => ({
    items: await bases.list(),
  }));
  app.post<{ Body: BaseCreate }>(
    '/v1/bases',
    {
      config: { scope: 'admin', machineWide: true },
      schema: { tags: ['bases'], summary: 'Register an image the engine already has as a base', body: BaseCreate, response: { 201: Base } },
    },
    async (request, reply) => reply.code(201).send(await bases.register(request.body)),
  );
}
