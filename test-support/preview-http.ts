import http from 'node:http';
import net from 'node:net';
import { textRequest, type RawResponse } from './raw-http';

type Api = (method: string, pathname: string, body?: unknown) => Promise<Response>;

export type PreviewResponse = RawResponse;

/** A request to the preview proxy at 127.0.0.1 with an explicit Host (no *.localhost resolution needed). */
export function previewRequest(
  proxyPort: number,
  host: string,
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: Buffer | string | ((req: http.ClientRequest) => void);
  } = {},
): Promise<PreviewResponse> {
  const target = {
    host: '127.0.0.1',
    port: proxyPort,
    path,
    method: options.method ?? 'GET',
    headers: { host, ...options.headers },
    agent: false,
  };
  const body = options.body;
  return textRequest(target, typeof body === 'function' ? body : (req) => req.end(body));
}

/** CGI env as the box's httpd saw it: {HTTP_HOST: ..., ...}. */
export function cgiEnv(body: string): Record<string, string> {
  return Object.fromEntries(
    body
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/**
 * In the box, through the API's exec: a busybox httpd on `port` serving
 * `dir` (index.html holds `text`), with CGI scripts `env` (the request's
 * environment) and `count` (bytes of the body); with `echoPort`, an upgrade
 * echo server there: answers any request with 101 and then echoes bytes
 * (the request heads it got are appended to /tmp/upgrade-heads).
 */
export async function startBoxServers(
  api: Api,
  boxPath: string,
  options: { port: number; text: string; dir?: string; bind?: string; echoPort?: number },
): Promise<void> {
  const dir = options.dir ?? `/www${options.port}`;
  const script = [
    'set -e',
    `mkdir -p ${dir}/cgi-bin`,
    `printf '%s' '${options.text}' > ${dir}/index.html`,
    `printf '#!/bin/sh\\nprintf "Content-Type: text/plain\\\\r\\\\n\\\\r\\\\n"\\nenv\\n' > ${dir}/cgi-bin/env`,
    `printf '#!/bin/sh\\nprintf "Content-Type: text/plain\\\\r\\\\n\\\\r\\\\n"\\nwc -c | tr -d " "\\n' > ${dir}/cgi-bin/count`,
    `chmod +x ${dir}/cgi-bin/env ${dir}/cgi-bin/count`,
    `httpd -p ${options.bind ? `${options.bind}:` : ''}${options.port} -h ${dir}`,
  ];
  if (options.echoPort) {
    script.push(
      `printf '#!/bin/sh\\nwhile read -r l; do echo "$l" >> /tmp/upgrade-heads; case "$l" in "$(printf "\\\\r")"|"") break;; esac; done\\nprintf "HTTP/1.1 101 Switching Protocols\\\\r\\\\nUpgrade: websocket\\\\r\\\\nConnection: Upgrade\\\\r\\\\n\\\\r\\\\n"\\nexec cat\\n' > /echo.sh`,
      'chmod +x /echo.sh',
      `nc -ll -p ${options.echoPort} -e /echo.sh </dev/null >/dev/null 2>&1 &`,
    );
  }
  const res = await api('POST', `${boxPath}/exec`, { command: ['sh', '-c', script.join('\n')] });
  const out = (await res.json()) as { exit_code: number; stderr: string };
  if (res.status !== 200 || out.exit_code !== 0)
    throw new Error(`starting servers in the box: HTTP ${res.status} ${JSON.stringify(out)}`);
}

/** A raw upgrade through the proxy: the status line of the answer, and the socket to talk on. */
export function rawUpgrade(
  proxyPort: number,
  host: string,
  headers: Record<string, string> = {},
  path = '/ws',
): Promise<{ status: number; head: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxyPort, '127.0.0.1');
    let buf = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('connect', () => {
      const lines = [
        `GET ${path} HTTP/1.1`,
        `Host: ${host}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const head = buf.subarray(0, end).toString('utf8');
      const rest = buf.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve({ status: Number(head.split(' ')[1]), head, socket });
    };
    socket.on('data', onData);
    socket.on('close', () => reject(new Error(`closed before an answer: ${buf.toString()}`)));
  });
}

/** Reads from the socket until `expected` bytes came, or it closes. */
export function readBytes(socket: net.Socket, expected: number, ms = 5000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const timer = setTimeout(() => reject(new Error(`got ${n} of ${expected} bytes in ${ms} ms`)), ms);
    const done = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(Buffer.concat(chunks));
    };
    const onData = (d: Buffer) => {
      chunks.push(d);
      n += d.length;
      if (n >= expected) done();
    };
    socket.on('data', onData);
    socket.once('close', done);
  });
}
