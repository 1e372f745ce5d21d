import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Value } from '@sinclair/typebox/value';
import { ApiError } from '../errors';
import { MCP_TOOLS, ToolInputs, type McpTool, type ToolContext } from './tools';
import type { ToolName } from './tool-inputs';

const byName = new Map<string, McpTool>(MCP_TOOLS.map((t) => [t.name, t as unknown as McpTool]));

/** A failure as the model reads it: the problem's detail (and hint), never a protocol error. */
function failure(err: unknown): CallToolResult {
  const lines =
    err instanceof ApiError
      ? [err.message, ...(err.errors ?? []).map((e) => `${e.path}: ${e.message}`), ...(err.hint ? [err.hint] : [])]
      : [err instanceof Error ? err.message : String(err)];
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] };
}

/** Checks a call's arguments against its tool's schema; the refusal names each field that is wrong. */
function checkArgs(name: ToolName, args: unknown): string[] {
  const schema = ToolInputs[name];
  return [...Value.Errors(schema, args)].map((e) => `${e.path || '/'}: ${e.message}`);
}

/** Runs one tool call: a result with structured content and text, or an isError result. */
export async function callTool(
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  const tool = byName.get(name);
  if (!tool) return failure(new Error(`no tool "${name}"; the tools are ${[...byName.keys()].join(', ')}`));
  const wrong = checkArgs(tool.name, args);
  if (wrong.length > 0) return failure(new Error(`invalid arguments for ${name}:\n${wrong.join('\n')}`));
  try {
    const project = typeof args.project === 'string' ? args.project : (ctx.defaultProject ?? 'default');
    const answer = await tool.run(ctx, args as never, project);
    return { structuredContent: answer.structured, content: [{ type: 'text', text: answer.text }] };
  } catch (err) {
    return failure(err);
  }
}

/** The version the server gives in its handshake: that of the tool set. */
export const MCP_SERVER_VERSION = '1.0.0';

/**
 * Boxdesk's MCP server: the tools of SPEC over whichever transport it is connected to. The SDK is
 * loaded on the first call, so a CLI command other than `box mcp` never pays for it.
 */
export async function createMcpServer(ctx: ToolContext): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server({ name: 'boxdesk', version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: MCP_TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: JSON.parse(JSON.stringify(ToolInputs[t.name])) as { type: 'object' },
      annotations: {
        readOnlyHint: 'readOnly' in t ? t.readOnly : false,
        destructiveHint: 'destructive' in t ? t.destructive : false,
      },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(ctx, request.params.name, request.params.arguments ?? {}),
  );
  return server;
}
