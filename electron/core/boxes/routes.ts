import type { FastifyInstance, FastifyReply } from 'fastify';
import { Box, BoxCreate, BoxList, BoxListQuery, BoxUpdate, LogsQuery } from '../../../shared/schemas/box';
import { BoxParams, ProjectParams } from '../../../shared/schemas/common';
import { deletedResponse, problemResponses, textStream } from '../http/problem-responses';
import { clientGoneSignal, resourceRoutes, type ResourceRoutes } from '../http/resource-routes';
import { sendLiveStream } from '../http/streaming';
import { IdempotencyHeaders, answerIdempotently, type IdempotencyPort } from '../idempotency/port';
import type { BoxService } from './service';
import type { BoxSleep } from './lifecycle/sleep';

const base = '/v1/projects/:project/boxes';
const one = `${base}/:name`;

/** Queued work for a client that goes away before its answer is sent is dropped. */
const clientGone = (reply: FastifyReply) => ({ signal: clientGoneSignal(reply) });

/** A box's own routes (stats: stats-routes.ts). */
export function registerBoxRoutes(
  app: FastifyInstance,
  boxes: BoxService,
  idempotency: IdempotencyPort,
  sleep: BoxSleep,
): void {
  const routes = resourceRoutes(app, 'boxes');
  registerBoxRecordRoutes(routes, boxes, idempotency, sleep);
  registerBoxChangeRoutes(routes, boxes);
}

/** Create (idempotently), list, get; the main process's output. */
function registerBoxRecordRoutes(
  { api, read, write }: ResourceRoutes,
  boxes: BoxService,
  idempotency: IdempotencyPort,
  sleep: BoxSleep,
): void {
  api.post(
    base,
    write('Create a box; answers when it is running', {
      description:
        'Creates the container from the base (or, with fork, from a copy-on-write copy of another box in the project) and starts it; a create of a base with a warm pool that needs nothing fixed at container creation (no data_mounts) takes one of its paused containers instead (docs/api.md "Warm pool"; its hostname is then box- and 8 characters of its id). N simultaneous creates of one name give one 201 and N-1 409. With an Idempotency-Key header a retry answers the first success again.',
      params: ProjectParams,
      headers: IdempotencyHeaders,
      body: BoxCreate,
      response: { 201: Box, ...problemResponses(404, 409) },
    }),
    async (request, reply) =>
      answerIdempotently(idempotency, request, reply, 201, () => boxes.create(request.params.project, request.body)),
  );
  api.get(
    base,
    read('List boxes, oldest first', { params: ProjectParams, querystring: BoxListQuery, response: { 200: BoxList } }),
    async (request) => boxes.list(request.params.project, request.query),
  );
  api.get(
    one,
    read('Get a box', { params: BoxParams, response: { 200: Box, ...problemResponses(404) } }),
    async (request) => boxes.get(request.params.project, request.params.name),
  );
  api.get(
    `${one}/logs`,
    read("The main process's output (text/plain); follow streams until the client leaves or the box stops", {
      params: BoxParams,
      querystring: LogsQuery,
      response: { 200: textStream('text/plain', "The main process's output"), ...problemResponses(404) },
    }),
    async (request, reply) => {
      const { tail, follow = false } = request.query;
      // Following needs the box running: a paused one wakes, and the follow counts as a use.
      if (follow) await sleep.awake(request.params.project, request.params.name, 'logs');
      const stream = await boxes.logs(request.params.project, request.params.name, { tail, follow });
      sendLiveStream(reply, 'text/plain; charset=utf-8', stream);
    },
  );
}

/** Update, delete, stop, resume: each in the box's queue, dropped when its client leaves. */
function registerBoxChangeRoutes({ api, write }: ResourceRoutes, boxes: BoxService): void {
  api.put(
    one,
    write('Update a box; answers with the full representation', {
      description:
        'config.cpus and config.ram_mb apply live; environment applies to every exec and console started afterwards; port, tags and termination_grace_period_seconds apply at once. Given maps replace the stored ones. network applies to new connections at once, without a restart; its fields given replace the stored ones (allow as a whole list).',
      params: BoxParams,
      body: BoxUpdate,
      response: { 200: Box, ...problemResponses(404, 409) },
    }),
    async (request, reply) =>
      boxes.update(request.params.project, request.params.name, request.body, clientGone(reply)),
  );
  api.delete(
    one,
    write('Delete a box and its container', {
      params: BoxParams,
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) => {
      await boxes.deleteForClient(request.params.project, request.params.name, clientGone(reply));
      return reply.code(204).send(null);
    },
  );
  // Stop and resume answer the box as it is then.
  const transition = { params: BoxParams, response: { 200: Box, ...problemResponses(404, 409) } };
  api.post(
    `${one}/stop`,
    write('Stop: SIGTERM, then SIGKILL after the grace period (at most 300 s). Idempotent.', transition),
    async (request, reply) => boxes.stop(request.params.project, request.params.name, clientGone(reply)),
  );
  api.post(
    `${one}/resume`,
    write('Resume a stopped box, wake a paused one, or restart one in error. Idempotent.', transition),
    async (request, reply) => boxes.resume(request.params.project, request.params.name, clientGone(reply)),
  );
}
