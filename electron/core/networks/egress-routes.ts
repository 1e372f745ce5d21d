import type { FastifyInstance } from 'fastify';
import { BoxParams } from '../../../shared/schemas/common';
import { EgressLog as EgressLogSchema, EgressQuery } from '../../../shared/schemas/egress';
import { problemResponses } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import type { EgressLog } from './egress-log';

/** GET a box's egress log: its recent connections, as the packet filter (or the egress proxy) saw them. */
export function registerEgressRoutes(
  app: FastifyInstance,
  /** The box's id, or a 404 problem. */
  find: (project: string, name: string) => { id: string },
  egress: EgressLog,
): void {
  const { api, read } = resourceRoutes(app, 'boxes');
  api.get(
    '/v1/projects/:project/boxes/:name/egress',
    read("The box's recent connections (its egress log)", {
      description:
        "What the box tried to reach, oldest first, at most the last 500: denied attempts at once, allowed connections once they end, with their bytes. Kept in the core's memory while the box exists (a restart of the core starts it afresh). ?after=ID gives only newer records; the `box.egress` event says when there are some.",
      params: BoxParams,
      querystring: EgressQuery,
      response: { 200: EgressLogSchema, ...problemResponses(404) },
    }),
    async (request) => {
      const { project, name } = request.params;
      const row = find(project, name);
      return { items: egress.list(row.id, request.query.after ?? 0) };
    },
  );
}
