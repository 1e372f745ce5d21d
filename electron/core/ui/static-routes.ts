import fs from 'node:fs';
import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

const MIME_TYPES: Record<string, string> = {
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

/**
 * The renderer's Content-Security-Policy, written once for both ways it is served: by the
 * headless core at `/` (the API is 'self') and by Electron at app://boxdesk (the API is the
 * core's http:// and ws:// origin, given as `apiSources`).
 */
export function uiContentSecurityPolicy(apiSources: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...apiSources].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export const UI_CSP = uiContentSecurityPolicy();

/**
 * The file of the renderer build a URL path names, and its content type.
 * Nothing outside `root` is reachable; unknown paths get index.html (client-side routes).
 * Shared by the headless core and Electron's app:// protocol.
 */
export function resolveUiFile(root: string, urlPath: string): { file: string; contentType: string } {
  let file: string;
  try {
    file = path.resolve(root, '.' + path.posix.join('/', decodeURIComponent(urlPath)));
  } catch {
    file = '';
  }
  if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || fs.statSync(file).isDirectory())
    file = path.join(root, 'index.html');
  return { file, contentType: MIME_TYPES[path.extname(file)] ?? 'application/octet-stream' };
}

/** Serves the renderer build at `/` (headless mode). */
export function registerStaticUi(app: FastifyInstance, uiDir: string): void {
  const root = path.resolve(uiDir);
  if (!fs.existsSync(path.join(root, 'index.html')))
    throw new Error(`--ui-dir ${root} has no index.html; build the renderer first (npm run build:renderer)`);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get('/*', { schema: { hide: true, params: Type.Object({ '*': Type.String() }) } }, (request, reply) => {
    const { file, contentType: type } = resolveUiFile(root, request.params['*']);
    const immutable = file.includes(`${path.sep}assets${path.sep}`);
    return reply
      .header('content-type', type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('content-security-policy', UI_CSP)
      .header('x-frame-options', 'DENY')
      .send(fs.createReadStream(file));
  });
}
