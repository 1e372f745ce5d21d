import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { BoxdeskClient, type FetchLike } from '../../../shared/client';
import { createMcpServer } from '../../../shared/mcp/server';
import { problemResponses } from '../http/problem-responses';
import { resourceRoutes } from '../http/resource-routes';
import { webCodec } from '../../../shared/mcp/codec';

/** One JSON-RPC message of the Model Context Protocol. */
const McpMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Integer()])),
    method: Type.Optional(Type.String({ maxLength: 200 })),
    params: Type.Optional(Type.Unknown()),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

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
      response: problemResponses(),
    }),
    async (request, reply) => {
      const client = new BoxdeskClient({
        baseUrl: `http://${request.headers.host}`,
        token: String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''),
        fetch: nodeFetch,
      });
      const server = createMcpServer({ client, codec: webCodec });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  for (const method of ['GET', 'DELETE'] as const) {
    api.route({
      method,
      url: '/v1/mcp',
      ...read(`${method} /v1/mcp: not served (the MCP endpoint is stateless)`, { response: problemResponses(405) }),
      handler: async (_request, reply) => {
        reply.header('allow', 'POST');
        throw new ApiError('method_not_allowed', 'this MCP endpoint is stateless: POST each message');
      },
    });
  }
}
