import fs from 'node:fs';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';

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

/** Answers a request no route matched; false when it is not one for the window. */
export type PageFallback = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | false;

/** Whether a URL path is the API's: those never get the window's files, matched or not. */
export function isApiPath(urlPath: string): boolean {
  return urlPath === '/v1' || urlPath.startsWith('/v1/');
}

/**
 * The renderer build at `/` (headless mode), as the answer to GET and HEAD requests that no route
 * matched — outside /v1, whose unmatched paths stay 404 problem documents (http/problems.ts).
 */
export function staticUi(uiDir: string): PageFallback {
  const root = path.resolve(uiDir);
  if (!fs.existsSync(path.join(root, 'index.html')))
    throw new Error(`--ui-dir ${root} has no index.html; build the renderer first (npm run build:renderer)`);
  return (request, reply) => {
    const urlPath = request.url.split('?')[0]!;
    if ((request.method !== 'GET' && request.method !== 'HEAD') || isApiPath(urlPath)) return false;
    const { file, contentType: type } = resolveUiFile(root, urlPath);
    const immutable = file.includes(`${path.sep}assets${path.sep}`);
    return reply
      .code(200)
      .header('content-type', type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('content-security-policy', UI_CSP)
      .header('x-frame-options', 'DENY')
      .send(fs.createReadStream(file));
  };
}
