import type { FastifyInstance } from 'fastify';
import { Box } from '../../../../shared/schemas/box';
import { BoxParams } from '../../../../shared/schemas/common';
import { problemResponses } from '../../http/problem-responses';
import { clientGoneSignal, resourceRoutes } from '../../http/resource-routes';
import type { BoxSleep } from './sleep';

/** POST …/pause (resume, which also wakes a paused box, is with stop in boxes/routes.ts). */
export function registerSleepRoutes(app: FastifyInstance, sleep: BoxSleep): void {
  const { api, write } = resourceRoutes(app, 'boxes');
  api.post(
    '/v1/projects/:project/boxes/:name/pause',
    write('Pause: freeze every process of the box in place (no CPU, memory kept). Idempotent.', {
      description:
        'A paused box is woken by resume, and transparently by anything that needs it running: exec, console, jobs, files, logs follow, a request through the proxy to its URL.',
      params: BoxParams,
      response: { 200: Box, ...problemResponses(404, 409) },
    }),
    async (request, reply) =>
      sleep.pause(request.params.project, request.params.name, { signal: clientGoneSignal(reply) }),
  );
}
