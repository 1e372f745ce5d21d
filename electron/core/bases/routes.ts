import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { BaseParams } from '../../../shared/schemas/snapshots';
import { Base, BaseCreate, BaseList } from '../../../shared/schemas/system';
import type { BaseAuthoring } from './authoring';
import type { BaseService } from './service';

const tags = ['bases'];
const TAR_TYPES = ['application/octet-stream', 'application/x-tar'];

/**
 * The upload body reaches the handler as the raw request stream, unbuffered
 * and unparsed. One small function, so a shared streamed parser can replace it.
 */
export function acceptStreamedBody(app: FastifyInstance, contentTypes: string[]): void {
  app.addContentTypeParser(contentTypes, (_request, payload, done) => done(null, payload));
}

export function registerBaseRoutes(app: FastifyInstance, bases: BaseService, authoring: BaseAuthoring): void {
  app.get('/v1/bases', { config: { scope: 'read' }, schema: { tags, summary: 'List base templates', response: { 200: BaseList } } }, async () => ({
    items: await bases.list(),
  }));

  app.post<{ Body: BaseCreate }>(
    '/v1/bases',
    {
      config: { scope: 'admin', machineWide: true },
      schema: {
        tags,
        summary: 'Make a base from an image the engine has, a snapshot, or a box',
        description: 'Exactly one of image, from_snapshot, from_box (with project, default "default"). from_box commits the box\'s root at this instant; from_snapshot shares the snapshot\'s image (the snapshot cannot be deleted while the base exists).',
        body: BaseCreate,
        response: { 201: Base },
      },
    },
    async (request, reply) => reply.code(201).send(await authoring.create(request.body)),
  );

  void app.register(async (scope) => {
    acceptStreamedBody(scope, TAR_TYPES);
    scope.post<{ Params: BaseParams; Body: Readable }>(
      '/v1/bases/:name/import',
      {
        config: { scope: 'admin', machineWide: true },
        schema: {
          tags,
          summary: 'Make a base from a root filesystem tar (application/x-tar or application/octet-stream), streamed to the engine',
          description: 'The archive becomes a single-layer image. Progress is sent as base.import events. At most 16 GiB.',
          params: BaseParams,
          response: { 201: Base },
        },
      },
      async (request, reply) => {
        const length = Number(request.headers['content-length']);
        return reply.code(201).send(await authoring.importTar(request.params.name, request.body, Number.isFinite(length) ? length : null));
      },
    );
  });

  app.delete<{ Params: BaseParams }>(
    '/v1/bases/:name',
    { config: { scope: 'admin', machineWide: true }, schema: { tags, summary: 'Delete a base; 409 while a box or snapshot uses it, naming them; "default" stays', params: BaseParams } },
    async (request, reply) => {
      await authoring.delete(request.params.name);
      return reply.code(204).send();
    },
  );
}
