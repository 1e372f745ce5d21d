import http from 'node:http';
import type { Readable } from 'node:stream';

/** A core's files route for one path in one box. */
export function filesUrl(core: { url: string }, project: string, box: string, boxPath: string): URL {
  return new URL(`${core.url}/v1/projects/${project}/boxes/${box}/files?path=${encodeURIComponent(boxPath)}`);
}

/** A PUT of `body` (bytes, or a stream of `size` bytes) to a files route, with its Content-Length. */
export function putFile(token: string, url: URL, body: Buffer | Readable, size: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          'content-length': String(size),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`upload: HTTP ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    if (Buffer.isBuffer(body)) return void req.end(body);
    body.on('error', reject).pipe(req);
  });
}

/** A GET of a files route; `sink` takes the body of its 200 answer. */
export function getFile(token: string, url: URL, sink: (res: http.IncomingMessage) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          headers: { authorization: `Bearer ${token}` },
        },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`download: HTTP ${res.statusCode}`));
          sink(res).then(resolve, reject);
        },
      )
      .on('error', reject);
  });
}
