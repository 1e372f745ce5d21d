import type { JsonSchema } from './openapi-arbitraries';

/** One operation of the served OpenAPI document, as the fuzzer needs it. */
export interface Operation {
  id: string;
  method: string;
  /** The path template, e.g. /v1/projects/{project}/boxes/{name}. */
  path: string;
  params: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  /** The request body's content types and schemas, if it takes one. */
  body: { required: boolean; content: Record<string, JsonSchema> } | null;
  /** Documented answers by status ("200", "404", "default"), with their content schemas. */
  responses: Record<string, Record<string, JsonSchema>>;
  summary: string;
  description: string;
}

export interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['params'];
        requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
        responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
        summary?: string;
        description?: string;
      }
    >
  >;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Every operation the document lists: the fuzzer covers new routes as they are served. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const responses: Operation['responses'] = {};
      for (const [status, r] of Object.entries(op.responses ?? {}))
        responses[status] = Object.fromEntries(Object.entries(r.content ?? {}).map(([ct, c]) => [ct, c.schema]));
      out.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: op.requestBody
          ? {
              required: op.requestBody.required ?? false,
              content: Object.fromEntries(Object.entries(op.requestBody.content).map(([ct, c]) => [ct, c.schema])),
            }
          : null,
        responses,
        summary: op.summary ?? '',
        description: op.description ?? '',
      });
    }
  }
  return out;
}
