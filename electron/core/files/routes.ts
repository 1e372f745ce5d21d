import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { BoxParams } from '../../../shared/schemas/common';
import {
  FileChanges,
  FileDeleteQuery,
  FileList,
  FileMkdirQuery,
  FilePathQuery,
  FileStat,
  FileWriteQuery,
} from '../../../shared/schemas/files';
import type { CoreConfig } from '../config';
import { streamBody } from '../http/body-parsers';
import { deletedResponse, problemResponses } from '../http/problem-responses';
import { noContent, resourceRoutes, type ResourceRoutes } from '../http/resource-routes';
import { sendDownload, sendLiveStream } from '../http/streaming';
import { parseBoxPath, parseMode } from './box-path';
import type { FileService } from './service';
import { clearSpool, formatBytes, uploadSource } from './upload-body';

const base = '/v1/projects/:project/boxes/:name/files';
/** What a route on a path of a box takes: the box, the path in the query. */
const onPath = { params: BoxParams, querystring: FilePathQuery };

export function registerFileRoutes(
  app: FastifyInstance,
  files: FileService,
  config: Pick<CoreConfig, 'dataDir' | 'uploadLimit'>,
): void {
  const spoolDir = path.join(config.dataDir, 'uploads');
  clearSpool(spoolDir);
  const routes = resourceRoutes(app, 'files');
  registerReadWriteRoutes(routes, files, config, spoolDir);
  registerTreeRoutes(routes, files);
  registerArchiveRoutes(routes, files);
}

/** A file's bytes: read, write (streamed, or spooled in the data dir first); a path's stat. */
function registerReadWriteRoutes(
  { api, read, options }: ResourceRoutes,
  files: FileService,
  config: Pick<CoreConfig, 'uploadLimit'>,
  spoolDir: string,
): void {
  api.get(
    base,
    read("A file's bytes (application/octet-stream, streamed); symlinks are followed inside the box", {
      description: 'A directory is a 400 (list it with /files/list). Works on running and stopped boxes.',
      ...onPath,
      response: { 200: streamBody("the file's bytes"), ...problemResponses(404, 409) },
    }),
    async (request, reply) => {
      const p = parseBoxPath(request.query.path);
      const { size, stream } = await files.read(request.params.project, request.params.name, p);
      sendDownload(reply, stream, {
        'content-type': 'application/octet-stream',
        'content-length': String(size),
        'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(path.posix.basename(p) || 'file')}`,
      });
    },
  );
  api.put(
    base,
    options(
      { scope: 'exec', body: 'stream' },
      'Write a file from the body (application/octet-stream, streamed); creates missing parents',
      {
        description: `mode: octal permission bits (default 0644). Limit ${formatBytes(config.uploadLimit)} (--upload-limit): 413 and nothing written. With Content-Length the body streams straight into the box; a chunked body is spooled in the data dir first. The bytes go to a temporary name beside the target, which they replace only once complete: a failed or interrupted upload leaves the file as it was, and concurrent writers of one path leave the last one's whole file. Under /proc, /sys or /dev: 400; a mount point (such as /etc/hostname) or a read-only volume: 409.`,
        params: BoxParams,
        querystring: FileWriteQuery,
        body: streamBody("the file's bytes"),
        response: { 200: FileStat, ...problemResponses(404, 409, 413) },
      },
    ),
    async (request) => {
      const p = parseBoxPath(request.query.path);
      const mode = parseMode(request.query.mode);
      const source = await uploadSource(request, spoolDir);
      try {
        return await files.write(request.params.project, request.params.name, p, mode, source.size, source.body);
      } finally {
        source.dispose();
      }
    },
  );
  api.get(
    `${base}/stat`,
    read('What is at a path (a symlink is reported as one, with link_target)', {
      ...onPath,
      response: { 200: FileStat, ...problemResponses(404, 409) },
    }),
    async (request) => files.stat(request.params.project, request.params.name, parseBoxPath(request.query.path)),
  );
}

/** A directory's entries; delete a path, make a directory. */
function registerTreeRoutes({ api, read, exec }: ResourceRoutes, files: FileService): void {
  api.get(
    `${base}/list`,
    read("A directory's direct children, sorted by path", {
      description:
        "Read from the engine's archive of the directory: the cost grows with everything below it (mtimes are whole seconds).",
      ...onPath,
      response: { 200: FileList, ...problemResponses(404, 409) },
    }),
    async (request) => ({
      items: await files.list(request.params.project, request.params.name, parseBoxPath(request.query.path)),
    }),
  );
  api.delete(
    base,
    exec('Delete a file, a symlink (not its target) or a directory (non-empty: recursive=true)', {
      params: BoxParams,
      querystring: FileDeleteQuery,
      response: { ...deletedResponse, ...problemResponses(404, 409) },
    }),
    async (request, reply) => {
      const { project, name } = request.params;
      const { path: p, recursive = false } = request.query;
      return noContent(reply, files.remove(project, name, parseBoxPath(p), recursive));
    },
  );
  api.post(
    `${base}/mkdir`,
    exec(
      'Create a directory (0755): 201; with parents=true missing parents too, and an existing directory answers 200',
      {
        params: BoxParams,
        querystring: FileMkdirQuery,
        response: { 200: FileStat, 201: FileStat, ...problemResponses(404, 409) },
      },
    ),
    async (request, reply) => {
      const { project, name } = request.params;
      const { path: p, parents = false } = request.query;
      const { created, stat } = await files.mkdir(project, name, parseBoxPath(p), parents);
      return reply.code(created ? 201 : 200).send(stat);
    },
  );
}

/** A directory's tree as a tar; what changed since the base. */
function registerArchiveRoutes({ api, read }: ResourceRoutes, files: FileService): void {
  api.get(
    `${base}/archive`,
    read(
      "A directory's tree as a tar (application/x-tar, streamed): regular files and directories only, named relative to it",
      {
        description: 'Symlinks, devices and other special files are left out. For `box cp NAME:/dir .`.',
        ...onPath,
        response: {
          200: { content: { 'application/x-tar': { schema: { type: 'string', format: 'binary' } } } },
          ...problemResponses(404, 409),
        },
      },
    ),
    async (request, reply) => {
      const stream = await files.archive(request.params.project, request.params.name, parseBoxPath(request.query.path));
      sendLiveStream(reply, 'application/x-tar', stream);
    },
  );
  api.get(
    `${base}/changes`,
    read(
      "Paths added, changed or deleted relative to the box's image (its base; for a fork, the copy it started from)",
      { params: BoxParams, response: { 200: FileChanges, ...problemResponses(404, 409) } },
    ),
    async (request) => ({ items: await files.changes(request.params.project, request.params.name) }),
  );
}
