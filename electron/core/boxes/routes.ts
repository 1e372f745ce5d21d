import type { FastifyInstance, FastifyReply } from 'fastify';
import { Box, BoxCreate, BoxList, BoxListQuery, BoxUpdate, LogsQuery } from '../../../shared/schemas/box';
import { BoxParams, ProjectParams } from '../../../shared/schemas/common';
import { sendLiveStream } from '../http/streaming';
import type { BoxService } from './service';

type P = { Params: BoxParams };
const tags = ['boxes'];

/** Aborts when the client goes away before its answer is sent: queued work for it is dropped. */
function clientGone(reply: FastifyReply): { signal: AbortSignal } {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return { signal: controller.signal };
}

export function registerBoxRoutes(app: FastifyInstance, boxes: BoxService): void {
  const base = '/v1/projects/:project/boxes';

  app.post<{ Params: { project: string }; Body: BoxCreate }>(
    base,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Create a box; answers when it is running',
        description: 'Creates the container from the base (or, with fork, from a copy-on-write copy of another box in the project) and starts it. N simultaneous creates of one name give one 201 and N-1 409.',
        params: ProjectParams,
        body: BoxCreate,
        response: { 201: Box },
      },
    },
    async (request, reply) => reply.code(201).send(await boxes.create(request.params.project, request.body)),
  );

  app.get<{ Params: { project: string }; Querystring: BoxListQuery }>(
    base,
    { config: { scope: 'read' }, schema: { tags, summary: 'List boxes, oldest first', params: ProjectParams, querystring: BoxListQuery, response: { 200: BoxList } } },
    async (request) => boxes.list(request.params.project, request.query),
  );

  app.get<P>(`${base}/:name`, { config: { scope: 'read' }, schema: { tags, summary: 'Get a box', params: BoxParams, response: { 200: Box } } }, async (request) =>
    boxes.get(request.params.project, request.params.name),
  );

  app.put<P & { Body: BoxUpdate }>(
    `${base}/:name`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Update a box; answers with the full representation',
        description: 'config.cpus and config.ram_mb apply live; environment applies to every exec and console started afterwards; port, tags and termination_grace_period_seconds apply at once. Given maps replace the stored ones.',
        params: BoxParams,
        body: BoxUpdate,
        response: { 200: Box },
      },
    },
    async (request, reply) => boxes.update(request.params.project, request.params.name, request.body, clientGone(reply)),
  );

  app.delete<P>(`${base}/:name`, { config: { scope: 'write' }, schema: { tags, summary: 'Delete a box and its container', params: BoxParams } }, async (request, reply) => {
    await boxes.delete(request.params.project, request.params.name, clientGone(reply));
    return reply.code(204).send();
  });

  app.post<P>(
    `${base}/:name/stop`,
    { config: { scope: 'write' }, schema: { tags, summary: 'Stop: SIGTERM, then SIGKILL after the grace period (at most 300 s). Idempotent.', params: BoxParams, response: { 200: Box } } },
    async (request, reply) => boxes.stop(request.params.project, request.params.name, clientGone(reply)),
  );

  app.post<P>(
    `${base}/:name/resume`,
    { config: { scope: 'write' }, schema: { tags, summary: 'Resume a stopped box, or restart one in error. Idempotent.', params: BoxParams, response: { 200: Box } } },
    async (request, reply) => boxes.resume(request.params.project, request.params.name, clientGone(reply)),
  );

  app.get<P & { Querystring: { tail?: number; follow?: boolean } }>(
    `${base}/:name/logs`,
    {
      config: { scope: 'read' },
      schema: { tags, summary: "The main process's output (text/plain); follow streams until the client leaves or the box stops", params: BoxParams, querystring: LogsQuery },
    },
    async (request, reply) => {
      const stream = await boxes.logs(request.params.project, request.params.name, { tail: request.query.tail, follow: request.query.follow ?? false });
      sendLiveStream(reply, 'text/plain; charset=utf-8', stream);
    },
  );
}
