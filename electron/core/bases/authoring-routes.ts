import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BaseParams } from '../../../shared/schemas/snapshots';
import { Base, BaseCreate } from '../../../shared/schemas/system';
import { streamBody, uploadStream } from '../http/body-parsers';
import { problemResponses } from '../http/problem-responses';
import type { BaseAuthoring } from './authoring';

const tags = ['bases'];

/** Making and deleting bases (base authoring). */
export function registerBaseAuthoringRoutes(app: FastifyInstance, authoring: BaseAuthoring): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/v1/bases',
    {
      config: { scope: 'admin', machineWide: true },
      schema: {
        tags,
        summary: 'Make a base from an image the engine has, a snapshot, or a box',
        description:
          'Exactly one of image, from_snapshot, from_box (with project, default "default"). from_box commits the box\'s root at this instant; from_snapshot shares the snapshot\'s image (the snapshot cannot be deleted while the base exists).',
        body: BaseCreate,
        response: { 201: Base, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await authoring.create(request.body)),
  );

  api.post(
    '/v1/bases/:name/import',
    {
      config: { scope: 'admin', machineWide: true, body: 'stream' },
      schema: {
        tags,
        summary: 'Make a base from a root filesystem tar, streamed to the engine',
        description:
          'The body (application/octet-stream) is a tar or gzip tar of a root filesystem; it becomes a single-layer image. --upload-limit bounds both the bytes sent and the bytes the archive unpacks to (a sparse file counted at its full length): past either, 413 and nothing is kept. Entries are checked as they arrive under the rootfs policy (docs/security.md): device nodes, fifos, sparse files, absolute or .. names, entries below a symlink of the archive, hard links not to an earlier file and relative symlinks leaving the tree are a 400 naming the entry; setuid files and absolute symlinks are kept. Progress is sent as base.import events.',
        params: BaseParams,
        body: streamBody('a tar archive of a root filesystem'),
        response: { 201: Base, ...problemResponses(400, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const length = Number(request.headers['content-length']);
      return reply
        .code(201)
        .send(
          await authoring.importTar(
            request.params.name,
            uploadStream(request),
            Number.isFinite(length) ? length : null,
          ),
        );
    },
  );

  api.delete(
    '/v1/bases/:name',
    {
      config: { scope: 'admin', machineWide: true },
      schema: {
        tags,
        summary: 'Delete a base; 409 while a box or snapshot uses it, naming them; "default" stays',
        params: BaseParams,
        response: { ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await authoring.delete(request.params.name);
      return reply.code(204).send();
    },
  );
}
