import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  302: 'Found',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** A plain page from the proxy itself (never the API's problem+json or CORS headers). */
export function sendPage(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${status} ${REASONS[status] ?? ''}\n\n${message}\n\n— Boxdesk preview proxy\n`;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

/** Refuses an upgrade: a plain answer, then the client socket is closed. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  if (socket.destroyed) return;
  const body = `${status} ${REASONS[status] ?? ''}\n\n${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? ''}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}
