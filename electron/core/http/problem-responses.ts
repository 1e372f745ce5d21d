import { Type } from '@sinclair/typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ERROR_CATALOGUE, PROBLEM_CONTENT_TYPE } from '../../../shared/errors';
import { ProblemSchema } from '../../../shared/schemas/common';

/**
 * Every /v1 route can answer these: validation, token, scope/Host/Origin, rate, a URL or headers
 * over 16 KiB (431, refused before routing), bug, engine or storage down.
 */
export const V1_PROBLEM_STATUSES = [400, 401, 403, 429, 431, 500, 503] as const;
/** Methods whose requests may carry a body that Fastify parses (and so may refuse as too large: 413). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Routes without a token (/version, /healthz) can still refuse a Host or an oversized request, or fail. */
export const UNVERSIONED_PROBLEM_STATUSES = [403, 431, 500] as const;

function describe(status: number): string {
  const codes = Object.entries(ERROR_CATALOGUE)
    .filter(([, v]) => v.status === status)
    .map(([code]) => code);
  return `Problem document (RFC 9457); code: ${codes.join(' | ') || 'see docs/api.md'}`;
}

/** The response entry for an error status: the shared problem schema as application/problem+json. */
export function problemResponse(status: number): {
  description: string;
  content: Record<string, { schema: typeof ProblemSchema }>;
} {
  return { description: describe(status), content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
}

/** Route-specific error answers, e.g. `response: { 201: Box, ...problemResponses(404, 409) }`. */
export function problemResponses(...statuses: number[]): Record<number, ReturnType<typeof problemResponse>> {
  return Object.fromEntries(statuses.map((s) => [s, problemResponse(s)]));
}

/** A 200 that streams text (logs, events): documented so a client knows the type; never serialised by Fastify. */
export function textStream(
  contentType: string,
  description: string,
): { description: string; content: Record<string, { schema: { type: 'string' } }> } {
  return { description, content: { [contentType]: { schema: { type: 'string' } } } };
}

/** A delete's success, documented so a generated client knows it: 204 and no body. */
export const deletedResponse = { 204: Type.Null({ description: 'Deleted; no body' }) };

/** A WebSocket route's success: the upgrade, and where its messages are described. */
export function switchingProtocols(what: string): { 101: ReturnType<typeof Type.Null> } {
  return {
    101: Type.Null({
      description: `Switching Protocols: the WebSocket of ${what}. Its frames, sessions and close codes: docs/protocol.md ("The exec and console WebSocket protocol").`,
    }),
  };
}

/**
 * Adds the error answers every route shares to its schema (so the OpenAPI document shows
 * them), keeping any a route declares itself. Must be installed before routes are added.
 */
export function installProblemResponses(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (RouteOptions['schema'] & { hide?: boolean }) | undefined;
    if (!schema || schema.hide) return;
    const defaults: number[] = [...(route.url.startsWith('/v1/') ? V1_PROBLEM_STATUSES : UNVERSIONED_PROBLEM_STATUSES)];
    // Any route refuses a body of a type it does not take (one that takes none refuses every body,
    // GET included: 415); one that takes a body, or whose method may carry one, can refuse its size.
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    defaults.push(415);
    if (schema.body || methods.some((m) => BODY_METHODS.has(m))) defaults.push(413);
    const response = {
      ...problemResponses(...defaults),
      ...((schema.response as Record<string, unknown> | undefined) ?? {}),
    };
    route.schema = { ...schema, response };
  });
}
