import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, PROBLEM_CONTENT_TYPE, type Problem } from '../../../shared/errors';
import { ProjectScopedError } from './project-scoped-error';
import { isStorageBusy } from '../db/database';
import { EngineError } from '../engine/container-engine';
import type { PageFallback } from '../ui/static-routes';
import { toFieldErrors } from './validation';
import { RegionUnavailableError } from '../engine/regions/regions';

/** Seconds a client should wait before retrying after storage_busy. */
export const STORAGE_RETRY_AFTER_S = 1;

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (problem.code === 'storage_busy') reply.header('retry-after', String(STORAGE_RETRY_AFTER_S));
  return reply
    .code(problem.status)
    .header('content-type', `${PROBLEM_CONTENT_TYPE}; charset=utf-8`)
    .send(JSON.stringify(problem));
}

export function engineErrorToApi(err: EngineError): ApiError {
  switch (err.kind) {
    case 'unavailable':
      if (err instanceof RegionUnavailableError)
        return new ApiError(
          'engine_unavailable',
          `${err.message}; its boxes' records still read, and the other regions carry on. Boxdesk reconnects by itself once it is back`,
        );
      return new ApiError(
        'engine_unavailable',
        `${err.message}. Start the Docker engine (or check DOCKER_HOST); Boxdesk reconnects by itself.`,
      );
    case 'not_found':
      return new ApiError('not_found', err.message);
    case 'conflict':
      return new ApiError('conflict', err.message);
    case 'invalid':
      return new ApiError('invalid_body', `the container engine refused the request: ${err.message}`);
    default:
      return new ApiError('internal', `the container engine failed: ${err.message}`);
  }
}

/** Maps any thrown error to a problem document; bugs are logged in full and hidden from the client. */
export function toApiError(err: unknown, reqId: string): { error: ApiError; bug: boolean } {
  if (err instanceof ApiError) return { error: err, bug: false };
  if (err instanceof EngineError) return { error: engineErrorToApi(err), bug: err.kind === 'failed' };
  if (isStorageBusy(err)) {
    return {
      error: new ApiError(
        'storage_busy',
        `the database (boxdesk.db) is locked by another process; retry in ${STORAGE_RETRY_AFTER_S} s, and if it persists, find what holds the file open`,
      ),
      bug: false,
    };
  }
  const fe = err as FastifyError & { validationContext?: string };
  if (fe.validation) {
    const errors = toFieldErrors(fe.validation as never, fe.validationContext);
    const detail = errors.map((e) => `${e.path} ${e.message}`).join('; ') || 'the request is invalid';
    return { error: new ApiError('invalid_body', detail, { errors }), bug: false };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        error: new ApiError('payload_too_large', 'the request body is larger than the 1 MiB limit'),
        bug: false,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        error: new ApiError(
          'unsupported_media_type',
          `send the body as application/json (got ${fe.message.replace(/^Unsupported Media Type:\s*/i, '') || 'another type'})`,
        ),
        bug: false,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { error: new ApiError('invalid_body', 'the Content-Length does not match the body'), bug: false };
  }
  if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { error: new ApiError('invalid_body', `the body is not valid JSON: ${fe.message}`), bug: false };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { error: new ApiError('invalid_body', fe.message), bug: false };
  }
  return {
    error: new ApiError('internal', `an internal error occurred (request ${reqId}); the core's log has the details`),
    bug: true,
  };
}

/**
 * Problem documents for every error, and for requests no route matched: a 404 — unless `pages`
 * (the window's files, ui/static-routes.ts) answers it, which it never does for a /v1 path.
 */
export function installErrorHandling(app: FastifyInstance, pages?: PageFallback): void {
  app.setErrorHandler((thrown, request, reply) => {
    // A refusal naming other projects' resources is worded for the token that asked.
    const err = thrown instanceof ProjectScopedError ? thrown.for(request.token) : thrown;
    const { error, bug } = toApiError(err, request.id);
    if ((err as { code?: string }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      if (request.routeOptions.config.body === 'stream')
        return sendProblem(
          reply,
          new ApiError('unsupported_media_type', 'send the body as application/octet-stream').toProblem(),
        );
      // (A route that takes no body refused it before parsing: body-parsers.ts.)
      const type = request.headers['content-type'];
      const got = type ? `Content-Type ${type}` : 'no Content-Type';
      return sendProblem(
        reply,
        new ApiError('unsupported_media_type', `send the body as application/json (got ${got})`).toProblem(),
      );
    }
    if (bug) request.log.error({ err }, 'request failed');
    return sendProblem(reply, error.toProblem());
  });
  app.setNotFoundHandler(
    (request, reply) =>
      pages?.(request, reply) ||
      sendProblem(
        reply,
        new ApiError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`).toProblem(),
      ),
  );
}
