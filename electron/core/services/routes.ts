import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProjectParams } from '../../../shared/schemas/common';
import {
  Deployment,
  DeploymentList,
  DeploymentParams,
  DeployRequest,
  Service,
  ServiceCreate,
  ServiceList,
  ServiceParams,
  ServiceUpdate,
} from '../../../shared/schemas/services';
import { SignInLink } from '../../../shared/schemas/publishing';
import { requireScopeFor, requireToken } from '../http/auth-guard';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes, type ResourceRoutes } from '../http/resource-routes';
import type { PublishingPort } from '../publishing/port';
import type { ServiceManager } from './service';

const base = '/v1/projects/:project/services';
const one = `${base}/:name`;
/** A command runs code in a box: setting one takes `exec` as well as `write` (docs/security.md). */
const COMMAND_SCOPE_NOTE =
  'Giving `command` needs the exec scope as well as write (403 otherwise): it runs code in a box.';
const checkCommand = (token: FastifyRequest['token'], command: unknown): void => {
  if (command !== undefined && command !== null)
    requireScopeFor(token, 'exec', "a service's command (it runs code in a box)");
};

const DEPLOY_NOTE =
  'Blue/green: the new color runs as the box {name}-{color} beside the live one, must pass its health check, then the route switches in one step; requests in flight on the old color finish (up to 30 s) before it stops and is removed. Deployments of a service run one at a time (later ones wait pending). Follow deployment.updated events.';

/** Services and their deployments. */
export function registerServiceRoutes(
  app: FastifyInstance,
  services: ServiceManager,
  signInLink: PublishingPort['signInLink'],
): void {
  const routes = resourceRoutes(app, 'services');
  registerServiceRecordRoutes(routes, services);
  registerDeploymentRoutes(routes, services);
  routes.api.post(
    `${one}/sign-in-link`,
    routes.read("A one-time link that opens the service's URL in a browser and signs that browser in", {
      description:
        'As for a published box (POST …/boxes/{name}/sign-in-link): with auth "token", the URL with a one-time `boxdesk_code` (60 s, once, this URL only) that the proxy exchanges for its session cookie; with "public", the URL itself.',
      params: ServiceParams,
      response: { 200: SignInLink, ...problemResponses(404) },
    }),
    async (request) => {
      const { project, name } = request.params;
      const service = services.get(project, name);
      return signInLink({ project, name, url: service.url }, service.url_settings.auth, requireToken(request.token).id);
    },
  );
}

/** Create, list, get, update, delete. */
function registerServiceRecordRoutes({ api, read, write }: ResourceRoutes, services: ServiceManager): void {
  api.post(
    base,
    write('Create a service and start its first deployment', {
      description: `${DEPLOY_NOTE} 409 when the service exists, a box not of this service is named {name}-blue or {name}-green, or a published box holds its URL. ${COMMAND_SCOPE_NOTE}`,
      params: ProjectParams,
      body: ServiceCreate,
      response: { 201: Service, ...problemResponses(404, 409) },
    }),
    async (request, reply) => {
      checkCommand(request.token, request.body.command);
      return reply.code(201).send(services.create(request.params.project, request.body));
    },
  );
  api.get(
    base,
    read("The project's services, oldest first", { params: ProjectParams, response: { 200: ServiceList } }),
    async (request) => ({ items: services.list(request.params.project) }),
  );
  api.get(
    one,
    read('Get a service', { params: ServiceParams, response: { 200: Service, ...problemResponses(404) } }),
    async (request) => services.get(request.params.project, request.params.name),
  );
  api.put(
    one,
    write("Change a service's spec", {
      description: `auth applies at once; the rest at the next deployment. ${COMMAND_SCOPE_NOTE}`,
      params: ServiceParams,
      body: ServiceUpdate,
      response: { 200: Service, ...problemResponses(404) },
    }),
    async (request) => {
      checkCommand(request.token, request.body.command);
      return services.update(request.params.project, request.params.name, request.body);
    },
  );
  api.delete(
    one,
    write("Delete a service: a deployment under way stops, both colors' boxes and the route go", {
      params: ServiceParams,
      response: { ...deletedResponse, ...problemResponses(404) },
    }),
    async (request, reply) => noContent(reply, services.delete(request.params.project, request.params.name)),
  );
}

/** Deploy, the deployments, roll back. */
function registerDeploymentRoutes(
  { api, read, write, writeOptionalBody, list }: ResourceRoutes,
  services: ServiceManager,
): void {
  api.post(
    `${one}/deployments`,
    // No body at all means {} (deploy the spec as it is).
    writeOptionalBody('Deploy the service (202, pending)', {
      description: `${DEPLOY_NOTE} ${COMMAND_SCOPE_NOTE}`,
      params: ServiceParams,
      body: DeployRequest,
      response: { 202: Deployment, ...problemResponses(404) },
    }),
    async (request, reply) => {
      checkCommand(request.token, request.body.command);
      return reply.code(202).send(services.deploy(request.params.project, request.params.name, request.body));
    },
  );
  list(`${one}/deployments`, "The service's deployments, newest first", ServiceParams, DeploymentList, (p) =>
    services.deployments(p.project, p.name),
  );
  api.get(
    `${one}/deployments/:id`,
    read('Get a deployment', { params: DeploymentParams, response: { 200: Deployment, ...problemResponses(404) } }),
    async (request) => services.deployment(request.params.project, request.params.name, request.params.id),
  );
  api.post(
    `${one}/rollback`,
    write("Roll back: redeploy the previous live deployment's spec (202, pending)", {
      description: `The rolled-back spec becomes the service's spec; health-gated like any deployment; the one it replaces becomes rolled_back. 409 when no earlier deployment was live. No body. ${DEPLOY_NOTE}`,
      params: ServiceParams,
      response: { 202: Deployment, ...problemResponses(404, 409) },
    }),
    async (request, reply) => reply.code(202).send(services.rollback(request.params.project, request.params.name)),
  );
}
