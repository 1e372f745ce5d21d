import http from 'node:http';
import type { Duplex } from 'node:stream';
import type net from 'node:net';
import { EngineError, type ExecSpec, type ExecState } from '../container-engine';

/** A request to a box agent over a connection it opened (docs/protocol.md); the connection ends with it. */
export function agentRequest(
  socket: net.Socket,
  method: string,
  path: string,
  headers: http.OutgoingHttpHeaders = {},
): http.ClientRequest {
  return http.request({
    method,
    path,
    createConnection: () => socket,
    headers: { host: 'box-agent', connection: 'close', ...headers },
  });
}

/** One request to a box agent with a JSON body, if any, sent. */
function request(socket: net.Socket, method: string, path: string, body?: unknown): http.ClientRequest {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const req = agentRequest(
    socket,
    method,
    path,
    payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
  );
  req.end(payload);
  return req;
}

/**
 * A connection to the agent that breaks or stalls is the box's trouble, not the core's: its agent
 * (the box's first process) ended, or cannot serve (a fork bomb holds every process slot). The
 * caller answers 409 with the box's state, never 500.
 */
const boxTrouble = (err: Error): EngineError =>
  err instanceof EngineError ? err : new EngineError('conflict', `the box agent: ${err.message}`);

/** Calls the agent and reads its JSON answer; an answer other than 2xx is an EngineError (404: not_found). */
export function call<T>(
  socket: net.Socket,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(socket, method, path, body);
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`the box agent did not answer ${method} ${path} in ${timeoutMs} ms`)),
    );
    req.on('error', (err) => reject(boxTrouble(err)));
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) {
          const detail = (text ? (JSON.parse(text) as { detail?: string }).detail : undefined) ?? text;
          return reject(new EngineError(res.statusCode === 404 ? 'not_found' : 'failed', `the box agent: ${detail}`));
        }
        resolve((text ? JSON.parse(text) : undefined) as T);
      });
    });
  });
}

/** Starts an exec: the connection is taken over (101) and carries its output out and its input in. */
export function startStream(socket: net.Socket, id: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const req = agentRequest(socket, 'POST', `/v1/execs/${id}/start`, {
      connection: 'Upgrade',
      upgrade: 'boxdesk-exec',
    });
    req.on('error', (err) => reject(boxTrouble(err)));
    req.on('upgrade', (_res, stream, head) => {
      if (head.length) stream.unshift(head);
      resolve(stream);
    });
    req.on('response', (res) => {
      res.resume();
      reject(
        new EngineError(
          res.statusCode === 404 ? 'not_found' : 'conflict',
          `the box agent refused to start exec ${id} (${res.statusCode})`,
        ),
      );
    });
    req.end();
  });
}

export const createExecCall = (socket: net.Socket, spec: ExecSpec): Promise<{ id: string }> =>
  call(
    socket,
    'POST',
    '/v1/execs',
    { command: spec.command, env: spec.env, cwd: spec.cwd ?? '', tty: spec.tty, stdin: spec.stdin },
    5_000,
  );

export async function inspectExecCall(socket: net.Socket, id: string): Promise<ExecState> {
  const st = await call<{ running: boolean; exit_code: number | null; pid: number }>(socket, 'GET', `/v1/execs/${id}`);
  return { running: st.running, exitCode: st.exit_code, pid: st.pid };
}
