import type { FastifyInstance } from 'fastify';
import { PassThrough } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import { WS_PROTOCOL } from '../../../shared/protocol';
import { BoxParams } from '../../../shared/schemas/common';
import { ExecRequest, ExecResult, type ExecStreamLine } from '../../../shared/schemas/exec';
import { JobStarted } from '../../../shared/schemas/jobs';
import { problemResponses, switchingProtocols } from '../http/problem-responses';
import { toApiError } from '../http/problems';
import { clientGoneSignal, resourceRoutes } from '../http/resource-routes';
import type { SocketRouter } from '../http/socket-router';
import { sendLiveStream } from '../http/streaming';
import type { JobsPort } from '../jobs/port';
import type { ExecService } from './service';
import { registerExecSockets } from './socket-routes';

const boxPath = '/v1/projects/:project/boxes/:name';

export function registerExecRoutes(
  app: FastifyInstance,
  exec: ExecService,
  jobs: JobsPort,
  sockets: SocketRouter,
): void {
  const { api, exec: execScope } = resourceRoutes(app, 'exec');
  api.post(
    `${boxPath}/exec`,
    execScope('Run a command to completion', {
      description:
        'The box environment (as of now) is merged under env. Output is capped per stream (10 MiB) with truncated. timeout_s kills the whole process tree. With Accept: application/x-ndjson the answer streams one JSON line per chunk ({"type":"stdout"|"stderr","data"}) then {"type":"exit",...}. With background: true it answers 202 {id, status} at once and the command runs on as a job (…/jobs/{id}).',
      params: BoxParams,
      body: ExecRequest,
      response: { 200: ExecResult, 202: JobStarted, ...problemResponses(404, 409) },
    }),
    async (request, reply) => {
      const { project, name } = request.params;
      if (request.body.background) return reply.code(202).send(await jobs.start(project, name, request.body));
      const signal = clientGoneSignal(reply);
      if (!String(request.headers.accept ?? '').includes('application/x-ndjson')) {
        return exec.run(project, name, request.body, undefined, signal);
      }
      const out = new PassThrough();
      const write = (line: ExecStreamLine | { type: 'error'; code: string; message: string }) =>
        out.write(`${JSON.stringify(line)}\n`);
      // Validate the box before answering 200, so a stopped box is still a 409.
      await exec.assertRunnable(project, name);
      void exec
        .run(project, name, request.body, write, signal)
        .then(({ stdout: _o, stderr: _e, ...rest }) => write({ type: 'exit', ...rest }))
        .catch((err) => {
          const { error } = toApiError(err, request.id);
          write({ type: 'error', code: error.code, message: error.message });
        })
        .finally(() => out.end());
      sendLiveStream(reply, 'application/x-ndjson; charset=utf-8', out);
    },
  );

  // The sockets themselves are served by the socket router; these document them and answer a plain GET.
  for (const kind of ['exec', 'console'] as const) {
    api.get(
      `${boxPath}/${kind}`,
      execScope(
        kind === 'exec' ? 'WebSocket: run a command interactively' : 'WebSocket: an interactive login shell on a TTY',
        {
          description: `WebSocket upgrade only (see docs/protocol.md). Offer the subprotocols "${WS_PROTOCOL}" and "bearer.<token>", or send Authorization. Query: ${kind === 'exec' ? 'command (repeated), tty=0|1, ' : ''}cols, rows, session (to reattach).`,
          params: BoxParams,
          response: {
            ...switchingProtocols(kind === 'exec' ? 'a command' : 'a login shell'),
            ...problemResponses(404, 409),
          },
        },
      ),
      async () => {
        throw new ApiError(
          'invalid_body',
          `${kind} is a WebSocket endpoint: connect with an Upgrade: websocket request`,
        );
      },
    );
  }
  registerExecSockets(sockets, exec);
}
