import type { FastifyInstance } from 'fastify';
import { ProjectParams } from '../../../shared/schemas/common';
import {
  Volume,
  VolumeAttach,
  VolumeBackup,
  VolumeBackupList,
  VolumeBackupParams,
  VolumeCreate,
  VolumeDetach,
  VolumeList,
  VolumeParams,
  VolumeRestore,
  VolumeSnapshot,
  VolumeSnapshotList,
  VolumeSnapshotParams,
} from '../../../shared/schemas/volumes';
import { streamBody } from '../http/body-parsers';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes, type ResourceRoutes } from '../http/resource-routes';
import { sendDownload } from '../http/streaming';
import type { VolumeBackups } from './backups';
import type { VolumeCopies } from './copies';
import type { VolumeService } from './service';

const base = '/v1/projects/:project/volumes';
const one = `${base}/:name`;

/** Data volumes' routes: records, mounts, snapshots, backups, restores. */
export function registerVolumeRoutes(
  app: FastifyInstance,
  volumes: VolumeService,
  copies: VolumeCopies,
  backups: VolumeBackups,
): void {
  const routes = resourceRoutes(app, 'volumes');
  registerVolumeRecordRoutes(routes, volumes, copies);
  registerMountRoutes(routes, volumes);
  registerVolumeSnapshotRoutes(routes, copies);
  registerBackupRoutes(routes, backups);
  registerRestoreRoute(routes, copies);
}

/** Create (empty or a clone), list, get, delete. */
function registerVolumeRecordRoutes(
  { api, read, write }: ResourceRoutes,
  volumes: VolumeService,
  copies: VolumeCopies,
): void {
  api.post(
    base,
    write('Create a volume: empty, or a clone of a volume (at this instant), a volume snapshot or a done backup', {
      description:
        'At most one of from_volume, from_snapshot, from_backup. size_gb is enforced as a quota on its store item where the copy-on-write store can (btrfs: size_enforced true), recorded only elsewhere (size_enforced false). The source is checked before anything is made (a backup whose archive is missing, changed or refused is a 409 naming it). Answers once the clone is filled.',
      params: ProjectParams,
      body: VolumeCreate,
      response: { 201: Volume, ...problemResponses(400, 404, 409) },
    }),
    async (request, reply) => reply.code(201).send(await copies.create(request.params.project, request.body)),
  );
  api.get(
    base,
    read("The project's volumes, oldest first", { params: ProjectParams, response: { 200: VolumeList } }),
    async (request) => ({ items: volumes.list(request.params.project) }),
  );
  api.get(
    one,
    read('Get a volume', { params: VolumeParams, response: { 200: Volume, ...problemResponses(404) } }),
    async (request) => volumes.get(request.params.project, request.params.name),
  );
  api.delete(
    one,
    write('Delete a volume with its snapshots and backups; 409 while a box mounts it, naming the boxes', {
      params: VolumeParams,
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) => noContent(reply, volumes.delete(request.params.project, request.params.name)),
  );
}

/** Attach and detach: a box's mounts. */
function registerMountRoutes({ api, write }: ResourceRoutes, volumes: VolumeService): void {
  const mountChange = {
    description:
      "The engine cannot change a live container's mounts: the box's container is recreated with its root kept (not one file of it is lost); a running box restarts (its processes start again), a stopped one stays stopped.",
    params: VolumeParams,
  };
  const answers = { 200: Volume, ...problemResponses(400, 404, 409) };
  api.post(
    `${one}/attach`,
    write('Mount the volume in a box at path', { ...mountChange, body: VolumeAttach, response: answers }),
    async (request) => volumes.attach(request.params.project, request.params.name, request.body),
  );
  api.post(
    `${one}/detach`,
    write('Unmount the volume from a box', { ...mountChange, body: VolumeDetach, response: answers }),
    async (request) => volumes.detach(request.params.project, request.params.name, request.body.box),
  );
}

/** A volume's snapshots. */
function registerVolumeSnapshotRoutes({ api, write, list }: ResourceRoutes, copies: VolumeCopies): void {
  api.post(
    `${one}/snapshots`,
    write('A point-in-time copy of the volume, kept by the engine', {
      description:
        'Copy-on-write (reflink) where the filesystem and the helper image allow it, a full copy otherwise: method says which. Running boxes that mount the volume read-write are paused for the copy only. No body.',
      params: VolumeParams,
      response: { 201: VolumeSnapshot, ...problemResponses(404) },
    }),
    async (request, reply) => reply.code(201).send(await copies.snapshot(request.params.project, request.params.name)),
  );
  list(`${one}/snapshots`, "The volume's snapshots, oldest first", VolumeParams, VolumeSnapshotList, (p) =>
    copies.listSnapshots(p.project, p.name),
  );
  api.delete(
    `${one}/snapshots/:id`,
    write('Delete a volume snapshot', {
      params: VolumeSnapshotParams,
      response: { ...deletedResponse, ...problemResponses(404) },
    }),
    async (request, reply) =>
      noContent(reply, copies.deleteSnapshot(request.params.project, request.params.name, request.params.id)),
  );
}

/** Start, list, get, download and delete a volume's backups. */
function registerBackupRoutes({ api, read, write, list }: ResourceRoutes, backups: VolumeBackups): void {
  api.post(
    `${one}/backups`,
    write('Start a backup: 202 pending, then done or failed (volume.backup events)', {
      description:
        'A gzip tar in the data dir with its sha256. Consistent: while a running box writes to the volume, a snapshot is taken first (those boxes paused for the copy only) and archived. Done only once the written file is read back and verified (sha256, unpacks to its end, every entry one a backup may hold: no device nodes, fifos, setuid files or links leaving the volume); otherwise failed, with the reason. Past backup_retention the oldest backup is removed. No body.',
      params: VolumeParams,
      response: { 202: VolumeBackup, ...problemResponses(404) },
    }),
    async (request, reply) => reply.code(202).send(backups.start(request.params.project, request.params.name)),
  );
  list(`${one}/backups`, "The volume's backups, oldest first", VolumeParams, VolumeBackupList, (p) =>
    backups.list(p.project, p.name),
  );
  api.get(
    `${one}/backups/:id`,
    read('Get a backup', { params: VolumeBackupParams, response: { 200: VolumeBackup, ...problemResponses(404) } }),
    async (request) => backups.get(request.params.project, request.params.name, request.params.id),
  );
  api.get(
    `${one}/backups/:id/download`,
    read("A done backup's .tar.gz (application/gzip, streamed)", {
      description:
        'With Content-Length, and the hex sha256 in X-Checksum-Sha256 (also Repr-Digest, RFC 9530). Entries are relative to the volume root.',
      params: VolumeBackupParams,
      response: {
        200: { content: { 'application/gzip': streamBody('').content['application/octet-stream']! } },
        ...problemResponses(404, 409),
      },
    }),
    async (request, reply) => {
      const { project, name, id } = request.params;
      const { size, sha256, stream } = backups.download(project, name, id);
      sendDownload(reply, stream, {
        'content-type': 'application/gzip',
        'content-length': String(size),
        'content-disposition': `attachment; filename="${name}-${id}.tar.gz"`,
        'x-checksum-sha256': sha256,
        'repr-digest': `sha-256=:${Buffer.from(sha256, 'hex').toString('base64')}:`,
      });
    },
  );
  api.delete(
    `${one}/backups/:id`,
    write('Delete a backup (409 while it is being written)', {
      params: VolumeBackupParams,
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) =>
      noContent(reply, backups.delete(request.params.project, request.params.name, request.params.id)),
  );
}

/** Restore a volume from one of its snapshots or backups. */
function registerRestoreRoute({ api, write }: ResourceRoutes, copies: VolumeCopies): void {
  api.post(
    `${one}/restore`,
    write("Replace the volume's data by one of its snapshots or done backups", {
      description:
        "409 while a box that mounts it is not stopped (naming them). The source is checked first (a backup's archive is there, matches its sha256, unpacks to its end and holds only what a backup may; a snapshot's engine volume is there): otherwise 409 naming it, and nothing is touched. The data is then filled into a new engine volume beside the old one and swapped in one step; the stopped boxes that mount it are recreated (root kept) to mount the new one. A restore cut short by a crash is rolled back (before the swap) or finished (after it), never redone.",
      params: VolumeParams,
      body: VolumeRestore,
      response: { 200: Volume, ...problemResponses(400, 404, 409) },
    }),
    async (request) => copies.restore(request.params.project, request.params.name, request.body),
  );
}
