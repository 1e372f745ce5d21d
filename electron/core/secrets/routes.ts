import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Secret, SecretCreate, SecretList, SecretName } from '../../../shared/schemas/secrets';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import type { SecretService } from './service';

export function registerSecretRoutes(app: FastifyInstance, secrets: SecretService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    '/v1/secrets',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['secrets'],
        summary: 'Add a secret: its value is write-only, put by the egress proxy into requests to its hosts only',
        body: SecretCreate,
        response: { 201: Secret, ...problemResponses(400, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(secrets.create(request.body)),
  );
  api.get(
    '/v1/secrets',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['secrets'],
        summary: 'List secrets (names, hosts, header; never values)',
        response: { 200: SecretList },
      },
    },
    async () => ({ items: secrets.list() }),
  );
  api.delete(
    '/v1/secrets/:name',
    {
      config: { scope: 'admin' },
      schema: {
        tags: ['secrets'],
        summary: 'Remove a secret no box holds',
        params: Type.Object({ name: SecretName }, { additionalProperties: false }),
        response: { ...deletedResponse, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => {
      secrets.delete(request.params.name);
      return reply.code(204).send(null);
    },
  );
}
