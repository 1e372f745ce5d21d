import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ProjectParams } from '../../../shared/schemas/common';
import { UpQuery } from '../../../shared/schemas/up';
import { requireScopeFor } from '../http/auth-guard';
import { streamBody, uploadStream } from '../http/body-parsers';
import { problemResponses, textStream } from '../http/problem-responses';
import { clientGoneSignal, resourceRoutes } from '../http/resource-routes';
import { sendLiveStream } from '../http/streaming';
import type { UpService } from './service';

const UP_DESCRIPTION = [
  'The body (application/x-tar or application/octet-stream; a gzip tar too) is the project folder: the client leaves out what .gitignore and .boxdeskignore say.',
  'It is read and checked whole first: past --upload-limit (the bytes it unpacks to) 413; not a tar, a devcontainer.json that is not JSON or names paths outside the folder, or no name to give the box 400; a box of that name not made by box up 409; and nothing is made.',
  'The plan: .devcontainer/devcontainer.json (or .devcontainer.json) — image, build.dockerfile/context/args, containerEnv, remoteEnv, workspaceFolder, forwardPorts (each published), postCreateCommand, postStartCommand, name; other properties (features, customizations…) are named in a note as ignored — else a Dockerfile at the root, else the default base.',
  'Building a base (a build or an image other than boxdesk/<base>) needs the admin scope too; making the box needs write and exec.',
  "Then 200 and the answer streams application/x-ndjson lines as it goes: {type: progress, phase, message}, {type: note}, {type: build, step | stream} (the base's build, with the engine's cache), {type: output, command, stream, data} (postCreateCommand and postStartCommand as they run), and last {type: done, box, …} naming the box, or {type: error, message}. Closing the connection cancels a build in progress.",
  'A second up of the folder (the box of that name was made by box up) rebuilds the base with the cache, copies in the files added or changed since the last up (listed in changes; files gone from the folder are listed and left in the box), starts the box if it was stopped (then postStartCommand runs; postCreateCommand never runs again) and publishes the ports again; a base or environment that changed is said in a note (the box keeps its root and environment).',
].join(' ');

/** `box up`: a box from a project folder, its progress streamed. */
export function registerUpRoutes(app: FastifyInstance, up: UpService): void {
  const { api, options } = resourceRoutes(app, 'boxes');
  api.post(
    '/v1/projects/:project/up',
    options(
      { scope: 'exec', body: 'stream' },
      'Make a box from a project folder (a tar): its devcontainer.json, else its Dockerfile, else the default base',
      {
        description: UP_DESCRIPTION,
        params: ProjectParams,
        querystring: UpQuery,
        body: streamBody('a tar (or gzip tar) of the project folder'),
        response: {
          200: textStream(
            'application/x-ndjson',
            'progress, notes, the build log and command output, one JSON object a line; the last names the box',
          ),
          ...problemResponses(400, 403, 409, 413, 415),
        },
      },
    ),
    async (request, reply) => {
      requireScopeFor(request.token, 'write', 'box up (it makes a box)');
      const prepared = await up.prepare(request.params.project, uploadStream(request), request.query);
      try {
        if (prepared.base?.build)
          requireScopeFor(request.token, 'admin', `box up of a folder whose ${prepared.plan.source} builds a base`);
      } catch (err) {
        prepared.folder.remove();
        throw err;
      }
      const signal = clientGoneSignal(reply);
      const out = new PassThrough();
      sendLiveStream(reply, 'application/x-ndjson', out);
      void up
        .run(prepared, (line) => out.write(`${JSON.stringify(line)}\n`), signal)
        .catch((err: unknown) => request.log.error({ err }, 'box up failed'))
        .finally(() => out.end());
    },
  );
}
