import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { LogFormat } from '../config';
import { redactUrl } from './log-redaction';

/** What the format changes in the HTTP app's options. */
export interface LogFormatOptions {
  /** Where pino writes (pretty: pino-pretty's stream); undefined: pino's own JSON on stdout. */
  stream?: NodeJS.WritableStream;
  /** Fastify's lines about each request; undefined: its own (two at info per request). */
  logController?: LogController;
}

/** A person's log: one debug line per answered request, none at info; failed ones as Fastify logs them. */
class RequestLinesAtDebug extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    request.log.debug(
      {
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  }
}

/**
 * `json`: pino's lines as they are, for programs (a pipe, a file, a log collector). `pretty`: for a
 * person at a terminal (`npm start`, `npm run serve`): pino-pretty's readable lines, and requests
 * only at debug, so the banner and its sign-in link are not scrolled away by the window's own calls.
 * pino-pretty is loaded only then: a core whose log is JSON never reads it.
 */
export async function logFormatOptions(format: LogFormat): Promise<LogFormatOptions> {
  if (format === 'json') return {};
  const { default: pretty } = await import('pino-pretty');
  return {
    stream: pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,reqId' }),
    logController: new RequestLinesAtDebug(),
  };
}
