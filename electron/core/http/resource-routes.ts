import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import { problemResponses } from './problem-responses';

/** What a route documents beyond its tag and summary (params, body, response, a description…). */
type RouteSchema = Omit<FastifySchema, 'tags' | 'summary'>;

/** A route's options: the token's scope (and any other route config), and its schema under the resource's tag. */
function optionsFor(tags: string[], config: FastifyContextConfig) {
  return <S extends RouteSchema>(summary: string, schema: S) => ({ config, schema: { tags, summary, ...schema } });
}

/**
 * A resource's routes: the TypeBox-typed instance, and the options each of its routes gives by the scope
 * it needs (`read`, `write`, `writeOptionalBody`, `exec`, `admin`; `options` for any other config), tagged with the resource in the
 * OpenAPI document: `api.get(one, read('Get a volume', { params, response }), handler)`.
 */
export function resourceRoutes(app: FastifyInstance, tag: string) {
  const tags = [tag];
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const write = optionsFor(tags, { scope: 'write' });
  return {
    api,
    /** GET `url` (scope read): `{items}`, what `items` finds for a box's or other owner's path; 404 when it is not there. */
    list: <P extends TSchema>(
      url: string,
      summary: string,
      params: P,
      list: TSchema,
      items: (params: Static<P>) => unknown[] | Promise<unknown[]>,
    ) =>
      api.get(
        url,
        {
          config: { scope: 'read' },
          schema: { tags, summary, params, response: { 200: list, ...problemResponses(404) } },
        },
        async (request) => ({ items: await items(request.params as Static<P>) }),
      ),
    read: optionsFor(tags, { scope: 'read' }),
    write,
    /** `write` for a route whose body is all optional: no body at all is an empty one. */
    writeOptionalBody: <S extends RouteSchema>(summary: string, schema: S) => ({
      preValidation: emptyBodyIsEmptyObject,
      ...write(summary, schema),
    }),
    exec: optionsFor(tags, { scope: 'exec' }),
    admin: optionsFor(tags, { scope: 'admin' }),
    options: <S extends RouteSchema>(config: FastifyContextConfig, summary: string, schema: S) =>
      optionsFor(tags, config)(summary, schema),
  };
}

export type ResourceRoutes = ReturnType<typeof resourceRoutes>;

/** Answers 204 No Content once `done` settles (its failure is the answer instead). */
export async function noContent(reply: FastifyReply, done: Promise<unknown> | void): Promise<FastifyReply> {
  await done;
  return reply.code(204).send();
}

/** The preValidation hook of `writeOptionalBody`. */
async function emptyBodyIsEmptyObject(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

/** Aborts when the client goes away before its answer is sent: work done for it alone can stop. */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
