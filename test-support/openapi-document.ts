import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import prettier from 'prettier';
import type { TestCore } from './test-core';

/** The committed copy of the document the core serves at /v1/openapi.json (`npm run openapi` writes it). */
export const COMMITTED_OPENAPI = path.join(import.meta.dirname, '..', 'docs', 'openapi.json');

export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers?: { url: string; variables?: Record<string, { default: string }> }[];
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
}

/** The document a core serves. */
export async function servedOpenApi(t: TestCore): Promise<OpenApiDocument> {
  const res = await t.api('GET', '/v1/openapi.json');
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as OpenApiDocument;
}

/** A test file's core and the document it serves: started before its tests and handed to `use`, closed after them. */
export function withServedOpenApi<C extends TestCore>(
  start: () => Promise<C>,
  use: (t: C, doc: OpenApiDocument) => void,
): void {
  let t: C;
  before(async () => {
    t = await start();
    use(t, await servedOpenApi(t));
  });
  after(() => t.close());
}

/** docs/openapi.json as committed. */
export function committedOpenApi(): OpenApiDocument {
  return JSON.parse(fs.readFileSync(COMMITTED_OPENAPI, 'utf8')) as OpenApiDocument;
}

/** Writes `doc` to docs/openapi.json, formatted as `npm run lint` wants it. */
export async function writeCommittedOpenApi(doc: OpenApiDocument): Promise<void> {
  const options = await prettier.resolveConfig(COMMITTED_OPENAPI);
  const text = await prettier.format(JSON.stringify(doc), { ...options, filepath: COMMITTED_OPENAPI });
  fs.writeFileSync(COMMITTED_OPENAPI, text);
}

/** Every operation of a document: method (upper case), path, operation. */
export function documentedOperations(doc: OpenApiDocument) {
  return Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path: p, op })),
  );
}
