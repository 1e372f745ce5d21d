import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';

export interface OpenApiLint {
  /** Every error and warning, each as one line: severity, rule, where, what. */
  findings: string[];
  /**
   * `operation-2xx-response` on an operation whose success is 101 Switching Protocols (the
   * WebSocket routes): OpenAPI has no notion of a WebSocket, and such a route never answers 2xx.
   * Given apart so a test can check they are exactly the WebSocket routes.
   */
  webSocketOperations: string[];
}

interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
}

/** The operation a JSON pointer like `#/paths/~1v1~1x/get/responses` is in, if any. */
function operationAt(document: Document, pointer: string) {
  const [, paths, path, method] = pointer.replace(/^#/, '').split('/');
  if (paths !== 'paths' || !path || !method) return undefined;
  return document.paths[path.replaceAll('~1', '/').replaceAll('~0', '~')]?.[method];
}

/**
 * Lints an OpenAPI document with Redocly's recommended rules (built into
 * @redocly/openapi-core: offline, no config file read).
 */
export async function lintOpenApi(document: Document): Promise<OpenApiLint> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems: NormalizedProblem[] = await lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: 'openapi.json',
    config,
  });
  const result: OpenApiLint = { findings: [], webSocketOperations: [] };
  for (const p of problems) {
    if (p.severity !== 'error' && p.severity !== 'warn') continue;
    const where = p.location.map((l) => l.pointer ?? '').join(', ');
    const operation = operationAt(document, where);
    if (p.ruleId === 'operation-2xx-response' && operation?.responses?.['101'])
      result.webSocketOperations.push(where.replace(/\/responses$/, ''));
    else result.findings.push(`${p.severity} ${p.ruleId} at ${where}: ${p.message}`);
  }
  return result;
}
