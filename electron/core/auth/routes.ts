import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { TokenCreate, TokenCreated, TokenList } from '../../../shared/schemas/system';
import type { AuthService } from './auth-service';
import { requireToken } from '../http/auth-guard';
import { deletedResponse, problemResponses } from '../http/problem-responses';

export function registerTokenRoutes(app: FastifyInstance, auth: AuthService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    '/v1/tokens',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['tokens'],
        summary: 'Create a token (the secret is shown only in this answer)',
        body: TokenCreate,
        response: { 201: TokenCreated },
      },
    },
    async (request, reply) => reply.code(201).send(auth.create(request.body, requireToken(request.token))),
  );
  api.get(
    '/v1/tokens',
    {
      config: { scope: 'admin' },
      schema: { tags: ['tokens'], summary: 'List tokens (never their secrets)', response: { 200: TokenList } },
    },
    async (request) => ({ items: auth.list(requireToken(request.token)) }),
  );
  api.delete(
    '/v1/tokens/:id',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['tokens'],
        summary: 'Delete a token; it stops working at once',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        response: { ...deletedResponse, ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      auth.delete(request.params.id, requireToken(request.token));
      return reply.code(204).send(null);
    },
  );
}
