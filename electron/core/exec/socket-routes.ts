import type { WebSocket } from 'ws';
import { ApiError } from '../../../shared/errors';
import { hasScope } from '../auth/port';
import { parseClientControl } from '../../../shared/protocol';
import type { SocketRequest, SocketRouter } from '../http/socket-router';
import { CONSOLE_COMMAND, type ExecService } from './service';
import type { SessionClient, TerminalSession } from './terminal-session';

const SOCKET_BASE = '/v1/projects/:project/boxes/:name';

function dimension(query: URLSearchParams, key: string): number | undefined {
  const v = query.get(key);
  if (v === null) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 10000)
    throw new ApiError('invalid_body', `query.${key} must be a whole number from 1 to 10000`);
  return n;
}

/**
 * The session a reattach names, if it still lives and belongs to this box. Only the token that
 * opened it, or an admin token, may take it over: its id is no secret (every process in the box
 * reads it from BOXDESK_SESSION).
 */
function reattach(exec: ExecService, { params, query, token }: SocketRequest): TerminalSession | undefined {
  const id = query.get('session');
  if (!id) return undefined;
  const session = exec.find(id);
  if (!session || session.spec.project !== params.project || session.spec.box !== params.name) {
    throw new ApiError('not_found', `session "${id}" not found (it ended, or its grace period ran out)`);
  }
  if (session.spec.owner !== token.id && !hasScope(token, 'admin'))
    throw new ApiError(
      'forbidden',
      `session "${id}" was opened by another token; only that token (or an admin token) can reattach it — open a new session instead`,
    );
  return session;
}

/** exec and console sockets (docs/protocol.md); the router has already checked Host, token, scope and rate. */
export function registerExecSockets(sockets: SocketRouter, exec: ExecService): void {
  sockets.register({
    path: `${SOCKET_BASE}/console`,
    scope: 'exec',
    accept: async (request) => {
      const { project, name } = request.params as { project: string; name: string };
      const session =
        reattach(exec, request) ??
        (await exec.open(project, name, {
          owner: request.token.id,
          command: CONSOLE_COMMAND,
          env: { TERM: 'xterm-256color' },
          tty: true,
          cols: dimension(request.query, 'cols'),
          rows: dimension(request.query, 'rows'),
        }));
      return (ws) => bindSession(ws, session);
    },
  });
  sockets.register({
    path: `${SOCKET_BASE}/exec`,
    scope: 'exec',
    accept: async (request) => {
      const { project, name } = request.params as { project: string; name: string };
      const { query } = request;
      let session = reattach(exec, request);
      if (!session) {
        const command = query.getAll('command');
        if (command.length === 0)
          throw new ApiError('invalid_body', 'give the command as repeated query parameters: ?command=ls&command=-l', {
            errors: [{ path: 'query.command', message: 'is required' }],
          });
        const tty = query.get('tty') === '1' || query.get('tty') === 'true';
        session = await exec.open(project, name, {
          owner: request.token.id,
          command,
          env: tty ? { TERM: 'xterm-256color' } : {},
          tty,
          cols: dimension(query, 'cols'),
          rows: dimension(query, 'rows'),
        });
      }
      const bound = session;
      return (ws) => bindSession(ws, bound);
    },
  });
}

function bindSession(ws: WebSocket, session: TerminalSession): void {
  const client: SessionClient = {
    send: (data, done) => {
      if (ws.readyState !== ws.OPEN) return done(new Error('socket closed'));
      ws.send(data, { binary: typeof data !== 'string' }, done);
    },
    close: (code, reason) => ws.close(code, reason),
  };
  session.attach(client);
  // Frames take effect in the order they were sent: keystrokes typed after a resize see the new size.
  let inOrder: Promise<void> = Promise.resolve();
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    inOrder = inOrder.then(async () => {
      if (isBinary) return session.input(data);
      const message = parseClientControl(data.toString('utf8'));
      if (!message) {
        ws.send(
          JSON.stringify({
            type: 'error',
            code: 'invalid_body',
            message: 'unknown control message; see docs/protocol.md',
          }),
        );
        return;
      }
      await session
        .control(message)
        .catch((err: Error) => ws.send(JSON.stringify({ type: 'error', code: 'internal', message: err.message })));
    });
  });
  // A deliberate close (1000) ends the session and its processes; anything else is a drop,
  // and the session waits out its grace period for a reattach.
  ws.on('close', (code) =>
    code === 1000 ? void session.end('the client closed the session') : session.detach(client),
  );
  ws.on('error', () => session.detach(client));
}
