import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Duplex } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import { checkRequest, type HostPolicy } from './hardening';
import { sendProblem } from './problems';
import { writeRawProblem } from './raw-problem';

/**
 * Errors Fastify raises before routing (a malformed percent-escape, an over-long path
 * segment): problem+json like every other error, and only after the Host check, so a
 * foreign Host always learns 403 and nothing else.
 */
export function frameworkErrorHandler(policy: HostPolicy): NonNullable<FastifyServerOptions['frameworkErrors']> {
  return (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
    const refusal = checkRequest(policy, request.raw, false);
    if (refusal) return sendProblem(reply, refusal.toProblem());
    switch (error.code) {
      case 'FST_ERR_BAD_URL':
        return sendProblem(
          reply,
          new ApiError(
            'invalid_body',
            'the URL path has a malformed percent-escape (a "%" must be followed by two hex digits)',
          ).toProblem(),
        );
      case 'FST_ERR_MAX_PARAM_LENGTH':
        return sendProblem(
          reply,
          new ApiError(
            'invalid_body',
            'a path segment is longer than 100 characters; names are DNS labels of at most 63',
          ).toProblem(),
        );
      default:
        request.log.error({ err: error }, 'framework error');
        return sendProblem(
          reply,
          new ApiError(
            'internal',
            `an internal error occurred (request ${request.id}); the core's log has the details`,
          ).toProblem(),
        );
    }
  };
}

/** Requests Node's parser refuses (headers over 16 KiB, bad syntax, too slow) get a problem document too. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let error: ApiError;
  if (err.code === 'HPE_HEADER_OVERFLOW')
    error = new ApiError(
      'headers_too_large',
      'the request line and headers are over 16 KiB; send a shorter URL or fewer headers',
    );
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    error = new ApiError('request_timeout', 'the request did not arrive in time; send it again');
  else error = new ApiError('invalid_body', `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'})`);
  if (socket.writable) writeRawProblem(socket, error);
  else socket.destroy();
}
