import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { TokenCreate, TokenCreated, TokenList } from '../../../shared/schemas/system';
import type { AuthService } from './auth-service';
import { requireToken } from '../http/auth-guard';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes } from '../http/resource-routes';

export function registerTokenRoutes(app: FastifyInstance, auth: AuthService): void {
  const { api, admin } = resourceRoutes(app, 'tokens');
  api.post(
    '/v1/tokens',
    admin('Create a token (the secret is shown only in this answer)', {
      body: TokenCreate,
      response: { 201: TokenCreated },
    }),
    async (request, reply) => reply.code(201).send(auth.create(request.body, requireToken(request.token))),
  );
  api.get(
    '/v1/tokens',
    admin('List tokens (never their secrets)', { response: { 200: TokenList } }),
    async (request) => ({
      items: auth.list(requireToken(request.token)),
    }),
  );
  api.delete(
    '/v1/tokens/:id',
    admin('Delete a token; it stops working at once', {
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { ...deletedResponse, ...problemResponses(404) },
    }),
    async (request, reply) => noContent(reply, auth.delete(request.params.id, requireToken(request.token))),
  );
}
