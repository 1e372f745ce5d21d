import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export const UI_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Serves the renderer build at `/` (headless mode); unknown paths get index.html for client-side routes. */
export function registerStaticUi(app: FastifyInstance, uiDir: string): void {
  const root = path.resolve(uiDir);
  const index = path.join(root, 'index.html');
  if (!fs.existsSync(index)) throw new Error(`--ui-dir ${root} has no index.html; build the renderer first (npm run build:renderer)`);
  app.get('/*', { schema: { hide: true } as never }, (request, reply) => {
    const urlPath = decodeURIComponent((request.params as { '*': string })['*'] ?? '');
    let file = path.resolve(root, urlPath);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) file = index;
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    const immutable = file.includes(`${path.sep}assets${path.sep}`);
    return reply
      .header('content-type', type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('content-security-policy', UI_CSP)
      .header('x-frame-options', 'DENY')
      .send(fs.createReadStream(file));
  });
}
