import Ajv, { type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { isStreamBodySchema } from './body-parsers';
import type { LazySchemas } from './lazy-schemas';
import type { FieldError } from '../../../shared/errors';
import { NO_NUL_PATTERN } from '../../../shared/schemas/common';

function makeAjv(options: Options): Ajv {
  // verbose: errors carry their parent schema, so a bad map key can say which names are allowed.
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, verbose: true, ...options });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are validated exactly: no coercion ("5" is not a port) and unknown
 * fields are errors, never silently dropped. Query strings and path
 * parameters arrive as text, so they are coerced.
 */
export function installValidators(app: FastifyInstance, schemas: LazySchemas): void {
  const body = makeAjv({ coerceTypes: false, removeAdditional: false });
  const text = makeAjv({ coerceTypes: 'array', removeAdditional: false });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body' && isStreamBodySchema(schema)) return () => true;
    const ajv = httpPart === 'body' ? body : text;
    return schemas.validator(() => ajv.compile(schema)) as never;
  });
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns ajv errors into problem field errors that name the offending field. */
export function toFieldErrors(errors: ErrorObject[], context: string | undefined): FieldError[] {
  const part = PART_NAMES[context ?? 'body'] ?? context ?? 'body';
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    let pointer = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      pointer = `${pointer}/${String((e.params as { additionalProperty: string }).additionalProperty)}`;
      const keyPatterns = Object.keys(
        (e.parentSchema as { patternProperties?: object } | undefined)?.patternProperties ?? {},
      );
      message =
        keyPatterns.length > 0
          ? `is not an allowed name (names must match ${keyPatterns.join(' or ')})`
          : 'is not a known field';
    } else if (e.keyword === 'required') {
      pointer = `${pointer}/${String((e.params as { missingProperty: string }).missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'pattern') {
      const pattern = String((e.params as { pattern: string }).pattern);
      message = pattern === NO_NUL_PATTERN ? 'must not contain a NUL character' : `must match ${pattern}`;
    }
    // A union reports one error per branch plus "must match a schema in anyOf"; keep the first useful one.
    if (e.keyword === 'anyOf' && out.some((f) => f.path.startsWith(`${part}${pointer.replace(/\//g, '.')}`))) continue;
    const path = part + pointer.replace(/\//g, '.');
    const key = `${path}:${message}`;
    if (seen.has(path) || seen.has(key)) continue;
    seen.add(path);
    seen.add(key);
    out.push({ path, message });
  }
  return out;
}

export type RouteSchema = FastifySchema & {
  tags?: string[];
  summary?: string;
  description?: string;
  operationId?: string;
};
