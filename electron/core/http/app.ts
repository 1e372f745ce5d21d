import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { DEFAULT_API_PORT, type CoreConfig } from '../config';
import { CORE_VERSION } from '../version';
import { staticUi } from '../ui/static-routes';
import { JSON_BODY_LIMIT, installBodyParsers } from './body-parsers';
import { clientErrorHandler, frameworkErrorHandler } from './framework-errors';
import { installHardening, type HostPolicy } from './hardening';
import { installOperationIds } from './operation-ids';
import { coreLoggerOptions } from './log-redaction';
import { logFormatOptions } from './log-format';
import { installProblemResponses } from './problem-responses';
import { installErrorHandling } from './problems';
import { installValidators } from './validation';
import { LazySchemas, rememberSchemas } from './lazy-schemas';

export interface HttpAppDeps {
  config: CoreConfig;
  policy: HostPolicy;
  /** false: no log; an object: pino options (tests pass a stream); omitted: config.logLevel. */
  logger?: boolean | object;
}

/**
 * The Fastify instance every route registers on, with what applies to all of them, in the
 * order a request meets it: Host/Origin, then (installAuthGuard, once the tokens module is made,
 * before any route) token and rate, then body parsing, validation, problem+json.
 */
export async function createHttpApp({ config, policy, logger }: HttpAppDeps): Promise<FastifyInstance> {
  const schemas = new LazySchemas();
  // A caller's own logger options (tests: a stream, or none) take no format.
  const format = await logFormatOptions(logger === undefined ? config.logFormat : 'json');
  const app = Fastify({
    logger: coreLoggerOptions(config.logLevel, logger, format.stream),
    ...(format.logController ? { logController: format.logController } : {}),
    bodyLimit: JSON_BODY_LIMIT,
    requestIdHeader: false,
    forceCloseConnections: true,
    return503OnClosing: true,
    frameworkErrors: frameworkErrorHandler(policy),
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: schemas.buildSerializer } },
  });
  rememberSchemas(app, schemas);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Boxdesk API',
        version: CORE_VERSION,
        description: 'Local sandbox manager. Every error is application/problem+json with a stable code.',
        license: { name: 'MIT', identifier: 'MIT' },
        // No public address yet: give the contact a url or email once the project has one.
        contact: { name: 'the Boxdesk authors' },
      },
      // The same document whatever port this core listens on: tools that read it get the default
      // local address, and the port as a variable for a core started with --port or BOXDESK_PORT.
      servers: [
        {
          url: 'http://127.0.0.1:{port}',
          description: 'The local core (loopback only)',
          variables: { port: { default: String(DEFAULT_API_PORT), description: '--port or BOXDESK_PORT' } },
        },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  installValidators(app, schemas);
  installOperationIds(app);
  installProblemResponses(app);
  installErrorHandling(app, config.uiDir ? staticUi(config.uiDir) : undefined);
  installBodyParsers(app, { jsonLimit: JSON_BODY_LIMIT, uploadLimit: config.uploadLimit });
  installHardening(app, policy);
  return app;
}
