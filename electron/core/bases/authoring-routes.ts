import type { FastifyInstance } from 'fastify';
import { BaseParams } from '../../../shared/schemas/snapshots';
import { Base, BaseCreate } from '../../../shared/schemas/system';
import { streamBody, uploadStream } from '../http/body-parsers';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes } from '../http/resource-routes';
import type { BaseAuthoring } from './authoring';

/** Making and deleting bases (base authoring): the whole machine's, for admin tokens only. */
export function registerBaseAuthoringRoutes(app: FastifyInstance, authoring: BaseAuthoring): void {
  const { api, options } = resourceRoutes(app, 'bases');
  const admin = { scope: 'admin', machineWide: true } as const;

  api.post(
    '/v1/bases',
    options(admin, 'Make a base from an image the engine has, a snapshot, or a box', {
      description:
        'Exactly one of image, from_snapshot, from_box (with project, default "default"). from_box commits the box\'s root at this instant; from_snapshot shares the snapshot\'s image (the snapshot cannot be deleted while the base exists).',
      body: BaseCreate,
      response: { 201: Base, ...problemResponses(404, 409) },
    }),
    async (request, reply) => reply.code(201).send(await authoring.create(request.body)),
  );

  api.post(
    '/v1/bases/:name/import',
    options({ ...admin, body: 'stream' }, 'Make a base from a root filesystem tar, streamed to the engine', {
      description:
        'The body (application/octet-stream) is a tar or gzip tar of a root filesystem; it becomes a single-layer image. --upload-limit bounds both the bytes sent and the bytes the archive unpacks to (a sparse file counted at its full length): past either, 413 and nothing is kept. Entries are checked as they arrive under the rootfs policy (docs/security.md): device nodes, fifos, sparse files, absolute or .. names, entries below a symlink of the archive, hard links not to an earlier file and relative symlinks leaving the tree are a 400 naming the entry; setuid files and absolute symlinks are kept. Progress is sent as base.import events.',
      params: BaseParams,
      body: streamBody('a tar archive of a root filesystem'),
      response: { 201: Base, ...problemResponses(400, 409, 413, 415) },
    }),
    async (request, reply) => {
      const length = Number(request.headers['content-length']);
      const base = await authoring.importTar(
        request.params.name,
        uploadStream(request),
        Number.isFinite(length) ? length : null,
      );
      return reply.code(201).send(base);
    },
  );

  api.delete(
    '/v1/bases/:name',
    options(
      admin,
      'Delete a base and the image the core made for it; 409 while a box, snapshot or another base uses it, naming them; "default" stays',
      {
        params: BaseParams,
        response: { ...deletedResponse, ...problemResponses(404, 409) },
      },
    ),
    async (request, reply) => noContent(reply, authoring.delete(request.params.name)),
  );
}
