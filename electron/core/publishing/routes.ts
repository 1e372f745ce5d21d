import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { Box } from '../../../shared/schemas/box';
import { BoxParams } from '../../../shared/schemas/common';
import { PublishRequest, SignInLink, SignInQuery } from '../../../shared/schemas/publishing';
import { requireToken } from '../http/auth-guard';
import { problemResponses } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import { sendProblem } from '../http/problems';
import type { PublishingService } from './service';

/** Publish and unpublish a box through the preview proxy. */
export function registerPublishingRoutes(app: FastifyInstance, publishing: PublishingService): void {
  const { api, read, write, writeOptionalBody } = resourceRoutes(app, 'publishing');
  const path = '/v1/projects/:project/boxes/:name/publish';
  api.post(
    path,
    // No body at all means {} (`box publish NAME` with the box's port and the defaults).
    writeOptionalBody('Publish the box at http://{name}--{project}.localhost:{proxy_port} through the preview proxy', {
      description:
        'Sets port (given, or the box\'s current one), published_domains and url_settings.auth (default "token"); fields not given keep their published values. A stopped box can be published: the proxy answers 502 until it runs. A domain another box publishes: 409 naming it.',
      params: BoxParams,
      body: PublishRequest,
      response: { 200: Box, ...problemResponses(404, 409) },
    }),
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
  api.post(
    '/v1/projects/:project/boxes/:name/sign-in-link',
    read('A one-time link that opens the published URL in a browser and signs that browser in', {
      description:
        'With auth "token": the URL with `?boxdesk_code=…`, a random code that works once, within 60 s, at this box\'s URL only; the proxy exchanges it for its session cookie (which admits this box only, and ends when the token that asked is deleted) and redirects to the URL without it. No token is ever in the URL. With auth "public": the URL itself. port= names one of the box\'s other published ports (port_urls): the link is to its URL. A box that is not published, or a port it does not publish: 409.',
      params: BoxParams,
      querystring: SignInQuery,
      response: { 200: SignInLink, ...problemResponses(404, 409) },
    }),
    async (request) =>
      publishing.signInLink(
        request.params.project,
        request.params.name,
        requireToken(request.token).id,
        request.query.port,
      ),
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
