import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import { problemResponses } from '../http/problem-responses';
import type { SnapshotService } from './service';

const tags = ['snapshots'];
const boxPath = '/v1/projects/:project/boxes/:name';

/** Snapshots of a box's root. */
export function registerSnapshotRoutes(app: FastifyInstance, snapshots: SnapshotService): void {
  registerBoxSnapshotRoutes(app, snapshots);
  registerProjectSnapshotRoutes(app, snapshots);
}

/** A box's snapshots, and its restore from one. */
function registerBoxSnapshotRoutes(app: FastifyInstance, snapshots: SnapshotService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    `${boxPath}/snapshots`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: "Snapshot a box's root (running or stopped); answers once the snapshot exists",
        description:
          'The root is committed as a layer while the box is paused for the commit only. name defaults to a generated one. 409 when the box has a snapshot of that name or is mid-transition.',
        params: BoxParams,
        body: SnapshotCreate,
        response: { 201: Snapshot, ...problemResponses(404, 409) },
      },
      // Every field is optional, so no body at all is an empty one.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) =>
      reply.code(201).send(await snapshots.create(request.params.project, request.params.name, request.body ?? {})),
  );

  api.get(
    `${boxPath}/snapshots`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "A box's snapshots, oldest first",
        params: BoxParams,
        response: { 200: SnapshotList, ...problemResponses(404) },
      },
    },
    async (request) => ({ items: snapshots.listOfBox(request.params.project, request.params.name) }),
  );

  api.post(
    `${boxPath}/restore`,
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: "Replace the box's root by a snapshot's",
        description:
          'The container is recreated from the snapshot; id, name, config, environment and tags stay. A running box runs again (its processes restart); a stopped box stays stopped. Any snapshot of the project will do. A snapshot whose image is gone from the engine is a 409 and the box is not touched; a restore that fails before its new container is recorded leaves the box as it was.',
        params: BoxParams,
        body: RestoreRequest,
        response: { 200: Box, ...problemResponses(404, 409) },
      },
    },
    async (request) => snapshots.restore(request.params.project, request.params.name, request.body.snapshot_id),
  );
}

/** A project's snapshots, by id. */
function registerProjectSnapshotRoutes(app: FastifyInstance, snapshots: SnapshotService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/v1/projects/:project/snapshots',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "The project's snapshots, including those of deleted boxes, oldest first",
        params: ProjectParams,
        response: { 200: SnapshotList },
      },
    },
    async (request) => ({ items: snapshots.listOfProject(request.params.project) }),
  );

  api.get(
    '/v1/projects/:project/snapshots/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'Get a snapshot',
        params: SnapshotParams,
        response: { 200: Snapshot, ...problemResponses(404) },
      },
    },
    async (request) => snapshots.get(request.params.project, request.params.id),
  );

  api.delete(
    '/v1/projects/:project/snapshots/:id',
    {
      config: { scope: 'write' },
      schema: {
        tags,
        summary: 'Delete a snapshot; 409 while a box, snapshot or base descends from it, naming them',
        params: SnapshotParams,
        response: { ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => {
      await snapshots.delete(request.params.project, request.params.id);
      return reply.code(204).send();
    },
  );
}
