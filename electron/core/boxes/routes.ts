import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Box, BoxCreate, BoxList, BoxListQuery, BoxUpdate, LogsQuery } from '../../../shared/schemas/box';
import { BoxParams, ProjectParams } from '../../../shared/schemas/common';
import { sendLiveStream } from '../http/streaming';
import { IdempotencyHeaders, answerIdempotently, type IdempotencyPort } from '../idempotency/port';
import type { BoxService } from './service';
import { problemResponses, textStream } from '../http/problem-responses';

const tags = ['boxes'];
const base = '/v1/projects/:project/boxes';

/** Aborts when the client goes away before its answer is sent: queued work for it is dropped. */
function clientGone(reply: FastifyReply): { signal: AbortSignal } {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return { signal: controller.signal };
}

/** A box's own routes (stats: stats-routes.ts). */
export function registerBoxRoutes(app: FastifyInstance, boxes: BoxService, idempotency: IdempotencyPort): void {
  registerBoxRecordRoutes(app, boxes, idempotency);
  registerBoxChangeRoutes(app, boxes);
  registerLogRoute(app, boxes);
}

/** Create (idempotently), list, get. */
function registerBoxRecordRoutes(app: FastifyInstance, boxes: BoxService, idempotency: IdempotencyPort): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    base,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Create a box; answers when it is running',
        description:
          'Creates the container from the base (or, with fork, from a copy-on-write copy of another box in the project) and starts it. N simultaneous creates of one name give one 201 and N-1 409. With an Idempotency-Key header a retry answers the first success again.',
        params: ProjectParams,
        headers: IdempotencyHeaders,
        body: BoxCreate,
        response: { 201: Box, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) =>
      answerIdempotently(idempotency, request, reply, 201, () => boxes.create(request.params.project, request.body)),
  );

  api.get(
    base,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'List boxes, oldest first',
        params: ProjectParams,
        querystring: BoxListQuery,
        response: { 200: BoxList },
      },
    },
    async (request) => boxes.list(request.params.project, request.query),
  );

  api.get(
    `${base}/:name`,
    {
      config: { scope: 'read' },
      schema: { tags, summary: 'Get a box', params: BoxParams, response: { 200: Box, ...problemResponses(404) } },
    },
    async (request) => boxes.get(request.params.project, request.params.name),
  );
}

/** Update, delete, stop, resume: each in the box's queue, dropped when its client leaves. */
function registerBoxChangeRoutes(app: FastifyInstance, boxes: BoxService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.put(
    `${base}/:name`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Update a box; answers with the full representation',
        description:
          'config.cpus and config.ram_mb apply live; environment applies to every exec and console started afterwards; port, tags and termination_grace_period_seconds apply at once. Given maps replace the stored ones.',
        params: BoxParams,
        body: BoxUpdate,
        response: { 200: Box, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) =>
      boxes.update(request.params.project, request.params.name, request.body, clientGone(reply)),
  );

  api.delete(
    `${base}/:name`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Delete a box and its container',
        params: BoxParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await boxes.deleteForClient(request.params.project, request.params.name, clientGone(reply));
      return reply.code(204).send(null);
    },
  );

  api.post(
    `${base}/:name/stop`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Stop: SIGTERM, then SIGKILL after the grace period (at most 300 s). Idempotent.',
        params: BoxParams,
        response: { 200: Box, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => boxes.stop(request.params.project, request.params.name, clientGone(reply)),
  );

  api.post(
    `${base}/:name/resume`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Resume a stopped box, or restart one in error. Idempotent.',
        params: BoxParams,
        response: { 200: Box, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => boxes.resume(request.params.project, request.params.name, clientGone(reply)),
  );
}

/** The main process's output. */
function registerLogRoute(app: FastifyInstance, boxes: BoxService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    `${base}/:name/logs`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "The main process's output (text/plain); follow streams until the client leaves or the box stops",
        params: BoxParams,
        querystring: LogsQuery,
        response: { 200: textStream('text/plain', "The main process's output"), ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      const stream = await boxes.logs(request.params.project, request.params.name, {
        tail: request.query.tail,
        follow: request.query.follow ?? false,
      });
      sendLiveStream(reply, 'text/plain; charset=utf-8', stream);
    },
  );
}
