import type { FastifyInstance } from 'fastify';
import { BaseBuild, BaseBuildList, BaseBuildQuery, BuildLogQuery, BuildParams } from '../../../shared/schemas/builds';
import { BaseParams } from '../../../shared/schemas/snapshots';
import { streamBody, uploadStream } from '../http/body-parsers';
import { deletedResponse, problemResponses, textStream } from '../http/problem-responses';
import { noContent, resourceRoutes } from '../http/resource-routes';
import { sendLiveStream } from '../http/streaming';
import type { BuildService } from './service';

const buildsPath = '/v1/bases/:name/builds';

/** Building bases from a Dockerfile: admin tokens only, like every base change. */
export function registerBuildRoutes(app: FastifyInstance, builds: BuildService): void {
  const { api, options } = resourceRoutes(app, 'bases');
  const admin = { scope: 'admin', machineWide: true } as const;
  api.post(
    '/v1/bases/:name/build',
    options({ ...admin, body: 'stream' }, 'Build a base from a Dockerfile and its context (a tar), with the engine', {
      description:
        'The body (application/x-tar or application/octet-stream; a gzip tar too) is the build context with its Dockerfile. It is read and checked whole before the build starts: past --upload-limit (the bytes it unpacks to) 413, not a tar or without the Dockerfile 400, and nothing is kept. "FROM boxdesk/<base>" names a Boxdesk base: the core writes that base\'s image id into the line, so the engine builds offline from the image it has. Then 202 and the engine builds it with its cache (GET …/builds/{id}/log follows it). A base that exists is rebuilt: it starts from the new image once the build is done, and boxes made from the old image keep it.',
      params: BaseParams,
      querystring: BaseBuildQuery,
      body: streamBody('a tar (or gzip tar) of the build context'),
      response: { 202: BaseBuild, ...problemResponses(400, 409, 413, 415) },
    }),
    async (request, reply) =>
      reply.code(202).send(await builds.start(request.params.name, uploadStream(request), request.query)),
  );
  api.get(
    buildsPath,
    options({ scope: 'read', machineWide: true }, "A base's builds, newest first (the last 20 are kept)", {
      params: BaseParams,
      response: { 200: BaseBuildList },
    }),
    async (request) => ({ items: builds.list(request.params.name) }),
  );
  api.get(
    `${buildsPath}/:id`,
    options({ scope: 'read', machineWide: true }, 'A build: its status and step, and why it failed', {
      params: BuildParams,
      response: { 200: BaseBuild, ...problemResponses(404) },
    }),
    async (request) => builds.get(request.params.name, request.params.id),
  );
  api.get(
    `${buildsPath}/:id/log`,
    options({ scope: 'read', machineWide: true }, "A build's log as ndjson lines {step?, stream?, error?}", {
      description:
        'The kept log (its last 2000 lines), one JSON object a line: {step} when a step begins, {stream} for its output, {error} for the failure. follow=1 streams new lines until the build ends.',
      params: BuildParams,
      querystring: BuildLogQuery,
      response: {
        200: textStream('application/x-ndjson', 'the log, one JSON object a line'),
        ...problemResponses(404),
      },
    }),
    async (request, reply) => {
      const follow = request.query.follow === true || request.query.follow === '1';
      sendLiveStream(reply, 'application/x-ndjson', builds.log(request.params.name, request.params.id, follow));
    },
  );
  api.delete(
    `${buildsPath}/:id`,
    options(admin, 'Cancel a build in progress: nothing of it is kept; 409 once it has ended', {
      params: BuildParams,
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) => noContent(reply, builds.cancel(request.params.name, request.params.id)),
  );
}
