import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { Box } from '../../../shared/schemas/box';
import { BoxParams } from '../../../shared/schemas/common';
import { PublishRequest } from '../../../shared/schemas/publishing';
import { problemResponses } from '../http/problem-responses';
import { emptyBodyIsEmptyObject, resourceRoutes } from '../http/resource-routes';
import { sendProblem } from '../http/problems';
import type { PublishingService } from './service';

/** Publish and unpublish a box through the preview proxy. */
export function registerPublishingRoutes(app: FastifyInstance, publishing: PublishingService): void {
  const { api, write } = resourceRoutes(app, 'publishing');
  const path = '/v1/projects/:project/boxes/:name/publish';
  api.post(
    path,
    {
      // No body at all means {} (`box publish NAME` with the box's port and the defaults).
      preValidation: emptyBodyIsEmptyObject,
      ...write('Publish the box at http://{name}--{project}.localhost:{proxy_port} through the preview proxy', {
        description:
          'Sets port (given, or the box\'s current one), published_domains and url_settings.auth (default "token"); fields not given keep their published values. A stopped box can be published: the proxy answers 502 until it runs. A domain another box publishes: 409 naming it.',
        params: BoxParams,
        body: PublishRequest,
        response: { 200: Box, ...problemResponses(404, 409) },
      }),
    },
    async (request) => publishing.publish(request.params.project, request.params.name, request.body),
  );
  api.delete(
    path,
    write('Unpublish: the URL and domains stop answering at once', {
      params: BoxParams,
      response: { 200: Box, ...problemResponses(404, 409) },
    }),
    async (request) => publishing.unpublish(request.params.project, request.params.name),
  );
}

/**
 * A page served by the preview proxy (a box's host or a published domain) may
 * never call the API, not even a read: its origin is refused outright.
 */
export function installPreviewOriginGuard(app: FastifyInstance, publishing: PublishingService): void {
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (origin === undefined || !publishing.isPreviewOrigin(origin)) return undefined;
    return sendProblem(
      reply,
      new ApiError(
        'forbidden',
        `Origin "${origin}" is a published box's page; it may not call the Boxdesk API`,
      ).toProblem(),
    );
  });
}
