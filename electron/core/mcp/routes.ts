import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { BoxdeskClient, type FetchLike } from '../../../shared/client';
import { createMcpServer } from '../../../shared/mcp/server';
import { problemResponses } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import type { RouteSchema } from '../http/validation';
import { webCodec } from '../../../shared/mcp/codec';

/** One JSON-RPC message of the Model Context Protocol (checked in full by the SDK's own schema). */
const McpMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, description: 'A JSON-RPC 2.0 request, notification or response (no batches)' },
);

/**
 * The SDK's modules, loaded by the first MCP request: loading them took a third of a second of
 * CPU at every start of a core, most of which never serve MCP.
 */
const loadSdk = async () => {
  const [transport, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { ...transport, ...types };
};
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

/**
 * What the SDK's transport would refuse with a JSON-RPC body, refused here as a problem document
 * like every other /v1 answer.
 */
function checkMcpRequest(request: FastifyRequest, { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS }: Sdk): void {
  const accept = String(request.headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new ApiError('not_acceptable', 'an MCP client must accept both application/json and text/event-stream', {
      hint: 'send Accept: application/json, text/event-stream',
    });
  }
  const version = request.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new ApiError(
      'invalid_body',
      `MCP protocol version "${version}" is not supported; the supported ones are ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  const parsed = JSONRPCMessageSchema.safeParse(request.body);
  if (!parsed.success) {
    throw new ApiError('invalid_body', 'the body is not a JSON-RPC request, notification or response of MCP', {
      errors: parsed.error.issues.map((i) => ({ path: `/${i.path.join('/')}`, message: i.message })),
    });
  }
}

/** Where this request reached the core: the tools' REST calls go back there. */
function ownAddress(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.socket;
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  const address = localAddress.replace(/^::ffff:(?=\d+\.)/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit) as never;

/**
 * /v1/mcp: the MCP tools over Streamable HTTP, stateless (a server per request). Each tool calls
 * this core's own REST routes with the caller's token, so scopes and project rules are exactly
 * the REST ones: a read token lists but does not create.
 */
export function registerMcpRoutes(app: FastifyInstance): void {
  const { api, read } = resourceRoutes(app, 'mcp');
  api.post(
    '/v1/mcp',
    read('The Model Context Protocol over Streamable HTTP (JSON-RPC)', {
      description:
        'Send Accept: application/json, text/event-stream. The tools (see docs/agents.md) act with this request\'s token, so each needs the scope of the REST route it calls (exec needs "exec", create_box "write"). Stateless: no Mcp-Session-Id.',
      body: McpMessage,
      response: {
        200: McpMessage,
        202: Type.Null({ description: 'A notification or response was taken' }),
        ...problemResponses(406),
      },
    }),
    async (request, reply) => {
      const sdk = await loadSdk();
      checkMcpRequest(request, sdk);
      const client = new BoxdeskClient({
        baseUrl: ownAddress(request),
        token: String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''),
        fetch: nodeFetch,
      });
      const server = await createMcpServer({ client, codec: webCodec });
      const transport = new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  // Not operations: left out of the OpenAPI document (a stateless MCP endpoint serves POST alone).
  for (const method of ['GET', 'DELETE'] as const) {
    api.route({
      method,
      url: '/v1/mcp',
      ...read(`${method} /v1/mcp: not served (the MCP endpoint is stateless)`, {
        response: problemResponses(405),
        hide: true,
      } as RouteSchema),
      handler: async (_request, reply) => {
        reply.header('allow', 'POST');
        throw new ApiError('method_not_allowed', 'this MCP endpoint is stateless: POST each message');
      },
    });
  }
}
