import type { Duplex } from 'node:stream';
import { ERROR_CATALOGUE, PROBLEM_CONTENT_TYPE, type ApiError } from '../../../shared/errors';

/**
 * Answers on a bare socket (a refused WebSocket upgrade, a request Node could not parse)
 * with a problem document, then closes the connection.
 */
export function writeRawProblem(socket: Duplex, error: ApiError, extraHeaders: Record<string, string> = {}): void {
  if (!socket.writable) return;
  const body = JSON.stringify(error.toProblem());
  const headers: Record<string, string> = {
    'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...(error.status === 401 ? { 'WWW-Authenticate': 'Bearer realm="boxdesk"' } : {}),
    ...extraHeaders,
  };
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${error.status} ${ERROR_CATALOGUE[error.code].title}\r\n${head}\r\n${body}`);
}
