import type { FastifyInstance } from 'fastify';
import { ClosedObject } from '../../../shared/schemas/common';
import { Secret, SecretCreate, SecretList, SecretName } from '../../../shared/schemas/secrets';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes } from '../http/resource-routes';
import type { SecretService } from './service';

export function registerSecretRoutes(app: FastifyInstance, secrets: SecretService): void {
  const { api, admin } = resourceRoutes(app, 'secrets');
  api.post(
    '/v1/secrets',
    admin('Add a secret: its value is write-only, put by the egress proxy into requests to its hosts only', {
      body: SecretCreate,
      response: { 201: Secret, ...problemResponses(400, 409) },
    }),
    async (request, reply) => reply.code(201).send(secrets.create(request.body)),
  );
  api.get(
    '/v1/secrets',
    admin('List secrets (names, hosts, header; never values)', { response: { 200: SecretList } }),
    async () => ({
      items: secrets.list(),
    }),
  );
  api.delete(
    '/v1/secrets/:name',
    admin('Remove a secret no box holds', {
      params: ClosedObject({ name: SecretName }),
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) => noContent(reply, secrets.delete(request.params.name)),
  );
}
