import type { FastifyInstance, FastifyReply } from 'fastify';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BoxParams } from '../../../shared/schemas/common';
import { FileChanges, FileDeleteQuery, FileList, FileMkdirQuery, FilePathQuery, FileStat, FileWriteQuery } from '../../../shared/schemas/files';
import type { CoreConfig } from '../config';
import { parseBoxPath, parseMode } from './box-path';
import type { FileService } from './service';
import { acceptOctetStream, clearSpool, formatBytes, uploadSource } from './upload-body';

const tags = ['files'];
const base = '/v1/projects/:project/boxes/:name/files';
type Q<T> = { Params: BoxParams; Querystring: T };

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

export function registerFileRoutes(app: FastifyInstance, files: FileService, config: Pick<CoreConfig, 'dataDir' | 'uploadLimit'>): void {
  const spoolDir = path.join(config.dataDir, 'uploads');
  clearSpool(spoolDir);
  void app.register(async (scope) => {
    acceptOctetStream(scope);

    scope.get<Q<FilePathQuery>>(
      base,
      {
        config: { scope: 'read' },
        schema: {
          tags,
          summary: "A file's bytes (application/octet-stream, streamed); symlinks are followed inside the box",
          description: 'A directory is a 400 (list it with /files/list). Works on running and stopped boxes.',
          params: BoxParams,
          querystring: FilePathQuery,
        },
      },
      async (request, reply) => {
        const p = parseBoxPath(request.query.path);
        const { size, stream } = await files.read(request.params.project, request.params.name, p);
        sendFile(reply, p, size, stream);
      },
    );

    scope.put<Q<FileWriteQuery>>(
      base,
      {
        config: { scope: 'exec' },
        schema: {
          tags,
          summary: 'Write a file from the body (application/octet-stream, streamed); creates missing parents',
          description: `mode: octal permission bits (default 0644). Limit ${formatBytes(config.uploadLimit)} (--upload-limit): 413 and nothing written. With Content-Length the body streams straight into the box; a chunked body is spooled in the data dir first. A failed upload leaves no partial file.`,
          params: BoxParams,
          querystring: FileWriteQuery,
          response: { 200: FileStat },
        },
      },
      async (request) => {
        const p = parseBoxPath(request.query.path);
        const mode = parseMode(request.query.mode);
        const source = await uploadSource(request, config.uploadLimit, spoolDir);
        try {
          return await files.write(request.params.project, request.params.name, p, mode, source.size, source.body);
        } finally {
          source.dispose();
        }
      },
    );

    scope.get<Q<FilePathQuery>>(
      `${base}/stat`,
      { config: { scope: 'read' }, schema: { tags, summary: 'What is at a path (a symlink is reported as one, with link_target)', params: BoxParams, querystring: FilePathQuery, response: { 200: FileStat } } },
      async (request) => files.stat(request.params.project, request.params.name, parseBoxPath(request.query.path)),
    );

    scope.get<Q<FilePathQuery>>(
      `${base}/list`,
      {
        config: { scope: 'read' },
        schema: {
          tags,
          summary: "A directory's direct children, sorted by path",
          description: "Read from the engine's archive of the directory: the cost grows with everything below it (mtimes are whole seconds).",
          params: BoxParams,
          querystring: FilePathQuery,
          response: { 200: FileList },
        },
      },
      async (request) => ({ items: await files.list(request.params.project, request.params.name, parseBoxPath(request.query.path)) }),
    );

    scope.delete<Q<FileDeleteQuery>>(
      base,
      { config: { scope: 'exec' }, schema: { tags, summary: 'Delete a file, a symlink (not its target) or a directory (non-empty: recursive=true)', params: BoxParams, querystring: FileDeleteQuery } },
      async (request, reply) => {
        await files.remove(request.params.project, request.params.name, parseBoxPath(request.query.path), request.query.recursive ?? false);
        return reply.code(204).send();
      },
    );

    scope.post<Q<FileMkdirQuery>>(
      `${base}/mkdir`,
      {
        config: { scope: 'exec' },
        schema: {
          tags,
          summary: 'Create a directory (0755): 201; with parents=true missing parents too, and an existing directory answers 200',
          params: BoxParams,
          querystring: FileMkdirQuery,
          response: { 200: FileStat, 201: FileStat },
        },
      },
      async (request, reply) => {
        const { created, stat } = await files.mkdir(request.params.project, request.params.name, parseBoxPath(request.query.path), request.query.parents ?? false);
        return reply.code(created ? 201 : 200).send(stat);
      },
    );

    scope.get<{ Params: BoxParams }>(
      `${base}/changes`,
      { config: { scope: 'read' }, schema: { tags, summary: "Paths added, changed or deleted relative to the box's image (its base; for a fork, the copy it started from)", params: BoxParams, response: { 200: FileChanges } } },
      async (request) => ({ items: await files.changes(request.params.project, request.params.name) }),
    );
  });
}
