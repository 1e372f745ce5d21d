import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import path from 'node:path';
import type { Readable } from 'node:stream';
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
import { problemResponses } from '../http/problem-responses';
import { sendLiveStream } from '../http/streaming';
import { parseBoxPath, parseMode } from './box-path';
import type { FileService } from './service';
import { clearSpool, formatBytes, uploadSource } from './upload-body';

const tags = ['files'];
const base = '/v1/projects/:project/boxes/:name/files';

/** Answers 200 with the file's bytes, streamed, with its length up front (clients can show progress). */
function sendFile(reply: FastifyReply, filePath: string, size: number, stream: Readable): void {
  reply.hijack();
  const res = reply.raw;
  const inherited = Object.fromEntries(Object.entries(reply.getHeaders()).map(([k, v]) => [k, String(v)]));
  res.writeHead(200, {
    ...inherited,
    'content-type': 'application/octet-stream',
    'content-length': String(size),
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(path.posix.basename(filePath) || 'file')}`,
  });
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

export function registerFileRoutes(
  app: FastifyInstance,
  files: FileService,
  config: Pick<CoreConfig, 'dataDir' | 'uploadLimit'>,
): void {
  const spoolDir = path.join(config.dataDir, 'uploads');
  clearSpool(spoolDir);
  registerReadWriteRoutes(app, files, config, spoolDir);
  registerListingRoutes(app, files);
  registerTreeRoutes(app, files);
  registerArchiveRoutes(app, files);
}

/** A file's bytes: read, write (streamed, or spooled in the data dir first). */
function registerReadWriteRoutes(
  app: FastifyInstance,
  files: FileService,
  config: Pick<CoreConfig, 'uploadLimit'>,
  spoolDir: string,
): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    base,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "A file's bytes (application/octet-stream, streamed); symlinks are followed inside the box",
        description: 'A directory is a 400 (list it with /files/list). Works on running and stopped boxes.',
        params: BoxParams,
        querystring: FilePathQuery,
        response: { 200: streamBody("the file's bytes"), ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const p = parseBoxPath(request.query.path);
      const { size, stream } = await files.read(request.params.project, request.params.name, p);
      sendFile(reply, p, size, stream);
    },
  );

  api.put(
    base,
    {
      config: { scope: 'exec', body: 'stream' },
      schema: {
        tags,
        summary: 'Write a file from the body (application/octet-stream, streamed); creates missing parents',
        description: `mode: octal permission bits (default 0644). Limit ${formatBytes(config.uploadLimit)} (--upload-limit): 413 and nothing written. With Content-Length the body streams straight into the box; a chunked body is spooled in the data dir first. The bytes go to a temporary name beside the target, which they replace only once complete: a failed or interrupted upload leaves the file as it was, and concurrent writers of one path leave the last one's whole file. Under /proc, /sys or /dev: 400; a mount point (such as /etc/hostname) or a read-only volume: 409.`,
        params: BoxParams,
        querystring: FileWriteQuery,
        body: streamBody("the file's bytes"),
        response: { 200: FileStat, ...problemResponses(404, 409, 413) },
      },
    },
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
}

/** A path's stat, a directory's entries. */
function registerListingRoutes(app: FastifyInstance, files: FileService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    `${base}/stat`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: 'What is at a path (a symlink is reported as one, with link_target)',
        params: BoxParams,
        querystring: FilePathQuery,
        response: { 200: FileStat, ...problemResponses(404, 409) },
      },
    },
    async (request) => files.stat(request.params.project, request.params.name, parseBoxPath(request.query.path)),
  );

  api.get(
    `${base}/list`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary: "A directory's direct children, sorted by path",
        description:
          "Read from the engine's archive of the directory: the cost grows with everything below it (mtimes are whole seconds).",
        params: BoxParams,
        querystring: FilePathQuery,
        response: { 200: FileList, ...problemResponses(404, 409) },
      },
    },
    async (request) => ({
      items: await files.list(request.params.project, request.params.name, parseBoxPath(request.query.path)),
    }),
  );
}

/** Delete a path, make a directory. */
function registerTreeRoutes(app: FastifyInstance, files: FileService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.delete(
    base,
    {
      config: { scope: 'exec' },
      schema: {
        tags,
        summary: 'Delete a file, a symlink (not its target) or a directory (non-empty: recursive=true)',
        params: BoxParams,
        querystring: FileDeleteQuery,
        response: problemResponses(404, 409),
      },
    },
    async (request, reply) => {
      await files.remove(
        request.params.project,
        request.params.name,
        parseBoxPath(request.query.path),
        request.query.recursive ?? false,
      );
      return reply.code(204).send();
    },
  );

  api.post(
    `${base}/mkdir`,
    {
      config: { scope: 'exec' },
      schema: {
        tags,
        summary:
          'Create a directory (0755): 201; with parents=true missing parents too, and an existing directory answers 200',
        params: BoxParams,
        querystring: FileMkdirQuery,
        response: { 200: FileStat, 201: FileStat, ...problemResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const { created, stat } = await files.mkdir(
        request.params.project,
        request.params.name,
        parseBoxPath(request.query.path),
        request.query.parents ?? false,
      );
      return reply.code(created ? 201 : 200).send(stat);
    },
  );
}

/** A directory's tree as a tar; what changed since the base. */
function registerArchiveRoutes(app: FastifyInstance, files: FileService): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    `${base}/archive`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary:
          "A directory's tree as a tar (application/x-tar, streamed): regular files and directories only, named relative to it",
        description: 'Symlinks, devices and other special files are left out. For `box cp NAME:/dir .`.',
        params: BoxParams,
        querystring: FilePathQuery,
        response: {
          200: { content: { 'application/x-tar': { schema: { type: 'string', format: 'binary' } } } },
          ...problemResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const stream = await files.archive(request.params.project, request.params.name, parseBoxPath(request.query.path));
      sendLiveStream(reply, 'application/x-tar', stream);
    },
  );

  api.get(
    `${base}/changes`,
    {
      config: { scope: 'read' },
      schema: {
        tags,
        summary:
          "Paths added, changed or deleted relative to the box's image (its base; for a fork, the copy it started from)",
        params: BoxParams,
        response: { 200: FileChanges, ...problemResponses(404, 409) },
      },
    },
    async (request) => ({ items: await files.changes(request.params.project, request.params.name) }),
  );
}
