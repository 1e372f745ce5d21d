import http from 'node:http';
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One request made with node:http (which, unlike fetch, sends any Host given); resolves with the
 * status, headers and the body as text. `send` writes the body and ends the request.
 */
export function textRequest(
  options: http.RequestOptions,
  send: (req: http.ClientRequest) => void = (req) => req.end(),
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    send(req);
  });
}

/** An HTTP request with full control of the headers (fetch will not send a foreign Host). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  return textRequest(
    {
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      method: options.method ?? 'GET',
      headers: options.headers,
    },
    (req) => req.end(options.body),
  );
}

/** Sends bytes exactly as given on a new TCP connection; resolves with the parsed answer when the server closes. */
export function rawSocketRequest(port: number, text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (data += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: http.IncomingHttpHeaders = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
  });
}
