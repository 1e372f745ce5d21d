import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { ApiError } from '../../../shared/errors';
import { requireToken } from '../http/auth-guard';
import type { IdempotencyStore } from './store';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The request header, for a route's `headers` schema (and so for the OpenAPI document). */
export const IdempotencyHeaders = Type.Object({
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7E]+$',
      description:
        'Makes a retry safe: the same key with the same body within 24 h answers what the first request answered; with another body, 409.',
    }),
  ),
});

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url.split('?')[0]}\n${canonicalJson(request.body)}`)
    .digest('hex');
}

/**
 * Runs a creating route's work at most once per Idempotency-Key: a retry with the same key and
 * body answers the first success again (with `Idempotent-Replayed: true`); a failure is not
 * remembered, so its retry runs again. Without the header the work simply runs.
 */
export async function answerIdempotently(
  store: IdempotencyStore,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  run: () => Promise<unknown>,
): Promise<FastifyReply> {
  const key = request.headers[IDEMPOTENCY_HEADER];
  if (typeof key !== 'string') return reply.code(status).send(await run());
  const token = requireToken(request.token);
  const claim = store.claim(token.id, key, requestHash(request));
  if (claim.kind === 'replay') return reply.code(claim.status).header('idempotent-replayed', 'true').send(claim.body);
  if (claim.kind === 'mismatch') {
    throw new ApiError(
      'conflict',
      `Idempotency-Key "${key}" was already used with a different request; send a new key for a new request`,
    );
  }
  if (claim.kind === 'in_progress')
    throw new ApiError(
      'conflict',
      `the request with Idempotency-Key "${key}" is still running; retry once it has answered`,
    );
  let body: unknown;
  try {
    body = await run();
  } catch (err) {
    store.release(token.id, key);
    throw err;
  }
  try {
    store.complete(token.id, key, status, body);
  } catch (err) {
    // The work is done and must be answered; only the memory of it failed.
    request.log.warn({ err }, 'could not store the answer of an idempotent request');
  }
  return reply.code(status).send(body);
}
