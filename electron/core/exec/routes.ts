import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { PassThrough } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError, ERROR_CATALOGUE, PROBLEM_CONTENT_TYPE } from '../../../shared/errors';
import { BEARER_PROTOCOL_PREFIX, WS_PROTOCOL, parseClientControl } from '../../../shared/protocol';
import { BoxParams, DNS_LABEL_PATTERN } from '../../../shared/schemas/common';
import { ExecRequest, ExecResult, type ExecStreamLine } from '../../../shared/schemas/exec';
import type { AuthService } from '../auth/auth-service';
import type { RateLimiter } from '../auth/rate-limiter';
import { checkRequest, type HostPolicy } from '../http/hardening';
import { toApiError } from '../http/problems';
import { sendLiveStream } from '../http/streaming';
import { CONSOLE_COMMAND, type ExecService } from './service';
import type { SessionClient, TerminalSession } from './terminal-session';

const tags = ['exec'];
const LABEL = DNS_LABEL_PATTERN.slice(1, -1).replace(/\(/g, '(?:');
const SOCKET_PATH = new RegExp(`^/v1/projects/(${LABEL})/boxes/(${LABEL})/(exec|console)$`);

export function registerExecRoutes(app: FastifyInstance, exec: ExecService, auth: AuthService, policy: HostPolicy, limiter: RateLimiter): void {
  app.post<{ Params: BoxParams; Body: ExecRequest }>(
    '/v1/projects/:project/boxes/:name/exec',
    {
      config: { scope: 'exec' },
      schema: {
        tags,
        summary: 'Run a command to completion',
        description:
          'The box environment (as of now) is merged under env. Output is capped per stream (10 MiB) with truncated. timeout_s kills the whole process tree. With Accept: application/x-ndjson the answer streams one JSON line per chunk ({"type":"stdout"|"stderr","data"}) then {"type":"exit",...}.',
        params: BoxParams,
        body: ExecRequest,
        response: { 200: ExecResult },
      },
    },
    async (request, reply) => {
      const { project, name } = request.params;
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      if (!String(request.headers.accept ?? '').includes('application/x-ndjson')) {
        return exec.run(project, name, request.body, undefined, abort.signal);
      }
      const out = new PassThrough();
      const write = (line: ExecStreamLine | { type: 'error'; code: string; message: string }) => out.write(`${JSON.stringify(line)}\n`);
      // Validate the box before answering 200, so a stopped box is still a 409.
      exec.assertRunnable(project, name);
      void exec
        .run(project, name, request.body, write, abort.signal)
        .then(({ stdout: _o, stderr: _e, ...rest }) => write({ type: 'exit', ...rest }))
        .catch((err) => {
          const { error } = toApiError(err, request.id);
          write({ type: 'error', code: error.code, message: error.message });
        })
        .finally(() => out.end());
      sendLiveStream(reply, 'application/x-ndjson; charset=utf-8', out);
    },
  );

  for (const kind of ['exec', 'console'] as const) {
    app.get(
      `/v1/projects/:project/boxes/:name/${kind}`,
      {
        config: { scope: 'exec' },
        schema: {
          tags,
          summary: kind === 'exec' ? 'WebSocket: run a command interactively' : 'WebSocket: an interactive login shell on a TTY',
          description: `WebSocket upgrade only (see docs/protocol.md). Offer the subprotocols "${WS_PROTOCOL}" and "bearer.<token>", or send Authorization. Query: ${kind === 'exec' ? 'command (repeated), tty=0|1, ' : ''}cols, rows, session (to reattach).`,
          params: BoxParams,
        },
      },
      async () => {
        throw new ApiError('invalid_body', `${kind} is a WebSocket endpoint: connect with an Upgrade: websocket request`);
      },
    );
  }

  // The token rides in a subprotocol; select boxdesk.v1 so the answer does not echo it back.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 4 * 1024 * 1024,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : ([...protocols].find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX)) ?? false)),
  });
  // Upgraded sockets would hold the server open: close them first; the sessions end after (ExecService.dispose).
  app.addHook('preClose', async () => {
    for (const ws of wss.clients) {
      ws.close(1001, 'the core is shutting down');
      setTimeout(() => ws.terminate(), 1000).unref();
    }
  });
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    handleUpgrade(req, socket, head).catch((err) => {
      const { error, bug } = toApiError(err, 'upgrade');
      if (bug) app.log.error({ err }, 'websocket upgrade failed');
      refuse(socket, error);
    });
  });

  async function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const refusal = checkRequest(policy, req, true);
    if (refusal) return refuse(socket, refusal);
    const match = SOCKET_PATH.exec(url.pathname);
    if (!match) return refuse(socket, new ApiError('not_found', `no WebSocket endpoint at ${url.pathname}`));
    const [, project, name, kind] = match as unknown as [string, string, string, 'exec' | 'console'];
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bearer = offered.find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
    const token = bearer ? auth.authenticateSecret(bearer.slice(BEARER_PROTOCOL_PREFIX.length)) : auth.authenticate(req.headers.authorization);
    auth.authorize(token, 'exec', project);
    const wait = limiter.take(token.id);
    if (wait > 0) throw new ApiError('rate_limited', `this token made too many requests; retry in ${wait} s`);

    const q = url.searchParams;
    const dims = (key: string) => {
      const v = q.get(key);
      if (v === null) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 10000) throw new ApiError('invalid_body', `query.${key} must be a whole number from 1 to 10000`);
      return n;
    };
    const cols = dims('cols');
    const rows = dims('rows');
    let session: TerminalSession | undefined;
    const sessionId = q.get('session');
    if (sessionId) {
      session = exec.find(sessionId);
      if (!session || session.spec.project !== project || session.spec.box !== name) {
        throw new ApiError('not_found', `session "${sessionId}" not found (it ended, or its grace period ran out)`);
      }
    } else if (kind === 'console') {
      session = await exec.open(project, name, { command: CONSOLE_COMMAND, env: { TERM: 'xterm-256color' }, tty: true, cols, rows });
    } else {
      const command = q.getAll('command');
      if (command.length === 0) throw new ApiError('invalid_body', 'give the command as repeated query parameters: ?command=ls&command=-l', { errors: [{ path: 'query.command', message: 'is required' }] });
      const tty = q.get('tty') === '1' || q.get('tty') === 'true';
      session = await exec.open(project, name, { command, env: tty ? { TERM: 'xterm-256color' } : {}, tty, cols, rows });
    }
    wss.handleUpgrade(req, socket, head, (ws) => bind(ws, session));
  }

  function bind(ws: WebSocket, session: TerminalSession): void {
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
          ws.send(JSON.stringify({ type: 'error', code: 'invalid_body', message: 'unknown control message; see docs/protocol.md' }));
          return;
        }
        await session.control(message).catch((err: Error) => ws.send(JSON.stringify({ type: 'error', code: 'internal', message: err.message })));
      });
    });
    // A deliberate close (1000) ends the session and its processes; anything else is a drop,
    // and the session waits out its grace period for a reattach.
    ws.on('close', (code) => (code === 1000 ? void session.end('the client closed the session') : session.detach(client)));
    ws.on('error', () => session.detach(client));
  }
}

/** Answers a refused upgrade with a problem document over plain HTTP. */
function refuse(socket: Duplex, error: ApiError): void {
  if (!socket.writable) return;
  const body = JSON.stringify(error.toProblem());
  const reason = ERROR_CATALOGUE[error.code].title;
  socket.end(
    `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n` +
      (error.status === 401 ? 'WWW-Authenticate: Bearer realm="boxdesk"\r\n' : '') +
      `\r\n${body}`,
  );
}
