import type { Command } from 'commander';
import type { Cli } from '../actions';
import { commandModule } from '../program';

function registerMcp(program: Command, cli: Cli): void {
  cli.action(
    program
      .command('mcp')
      .description(
        "serve the Model Context Protocol on stdin/stdout for an agent (tools: boxes, exec and jobs, files, snapshots, publishing, logs); it acts with this CLI's core and token",
      ),
    async (ctx) => {
      // Loaded here, not at start: every other command would pay for the SDK.
      const [{ StdioServerTransport }, { createMcpServer }, { webCodec }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../shared/mcp/server'),
        import('../../shared/mcp/codec'),
      ]);
      const server = await createMcpServer({ client: ctx.client, codec: webCodec, defaultProject: ctx.project });
      const closed = new Promise<void>((resolve) => (server.onclose = resolve));
      await server.connect(new StdioServerTransport());
      // Until the client closes stdin.
      process.stdin.once('end', () => void server.close());
      await closed;
    },
  );
}

/** `box mcp`: Boxdesk as an MCP server over stdio. */
export const mcp = commandModule('mcp', [registerMcp]);
