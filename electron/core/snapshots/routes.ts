import type { FastifyInstance } from 'fastify';
import { Box } from '../../../shared/schemas/box';
import { BoxParams, ProjectParams } from '../../../shared/schemas/common';
import {
  RestoreRequest,
  Snapshot,
  SnapshotCreate,
  SnapshotList,
  SnapshotParams,
} from '../../../shared/schemas/snapshots';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes, type ResourceRoutes } from '../http/resource-routes';
import type { SnapshotService } from './service';

const boxPath = '/v1/projects/:project/boxes/:name';
const projectPath = '/v1/projects/:project/snapshots';

/** Snapshots of a box's root. */
export function registerSnapshotRoutes(app: FastifyInstance, snapshots: SnapshotService): void {
  const routes = resourceRoutes(app, 'snapshots');
  registerBoxSnapshotRoutes(routes, snapshots);
  registerProjectSnapshotRoutes(routes, snapshots);
}

/** A box's snapshots, and its restore from one. */
function registerBoxSnapshotRoutes(
  { api, write, writeOptionalBody, list }: ResourceRoutes,
  snapshots: SnapshotService,
): void {
  api.post(
    `${boxPath}/snapshots`,
    writeOptionalBody("Snapshot a box's root (running or stopped); answers once the snapshot exists", {
      description:
        'The root is committed as a layer while the box is paused for the commit only. name defaults to a generated one. 409 when the box has a snapshot of that name or is mid-transition.',
      params: BoxParams,
      body: SnapshotCreate,
      response: { 201: Snapshot, ...problemResponses(404, 409) },
    }),
    async (request, reply) =>
      reply.code(201).send(await snapshots.create(request.params.project, request.params.name, request.body ?? {})),
  );
  list(`${boxPath}/snapshots`, "A box's snapshots, oldest first", BoxParams, SnapshotList, (p) =>
    snapshots.listOfBox(p.project, p.name),
  );
  api.post(
    `${boxPath}/restore`,
    write("Replace the box's root by a snapshot's", {
      description:
        'The container is recreated from the snapshot; id, name, config, environment and tags stay. A running box runs again (its processes restart); a stopped box stays stopped. Any snapshot of the project will do. A snapshot whose image is gone from the engine is a 409 and the box is not touched; a restore that fails before its new container is recorded leaves the box as it was.',
      params: BoxParams,
      body: RestoreRequest,
      response: { 200: Box, ...problemResponses(404, 409) },
    }),
    async (request) => snapshots.restore(request.params.project, request.params.name, request.body.snapshot_id),
  );
}

/** A project's snapshots, by id. */
function registerProjectSnapshotRoutes({ api, read, write }: ResourceRoutes, snapshots: SnapshotService): void {
  api.get(
    projectPath,
    read("The project's snapshots, including those of deleted boxes, oldest first", {
      params: ProjectParams,
      response: { 200: SnapshotList },
    }),
    async (request) => ({ items: snapshots.listOfProject(request.params.project) }),
  );
  api.get(
    `${projectPath}/:id`,
    read('Get a snapshot', { params: SnapshotParams, response: { 200: Snapshot, ...problemResponses(404) } }),
    async (request) => snapshots.get(request.params.project, request.params.id),
  );
  api.delete(
    `${projectPath}/:id`,
    write('Delete a snapshot; 409 while a box, snapshot or base descends from it, naming them', {
      params: SnapshotParams,
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) => noContent(reply, snapshots.delete(request.params.project, request.params.id)),
  );
}
