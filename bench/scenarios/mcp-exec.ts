import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BOX_BIN, cliEnv } from '../../test-support/cli-runner';
import { ratioResult, type ScenarioResult } from '../report';
import { alternate, progress, timed } from '../stats';
import { createBox, execInBox, type BenchContext, type BenchScenario } from './context';

const WARMUP = 3;
const BOX = 'mcp-exec';

/** An MCP client of the SDK, connected once (as an agent's is) over `transport`. */
async function connect(ctx: BenchContext, transport: 'http' | 'stdio'): Promise<Client> {
  const client = new Client({ name: 'boxdesk-bench', version: '1.0.0' });
  await client.connect(
    transport === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: [BOX_BIN, '--url', ctx.core.url, '--token', ctx.core.token, '-p', ctx.project, 'mcp'],
          env: cliEnv() as Record<string, string>,
        })
      : new StreamableHTTPClientTransport(new URL(`${ctx.core.url}/v1/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${ctx.core.token}` } },
        }),
  );
  return client;
}

/** The MCP tool `exec` of ['true'] (over /v1/mcp, and over `box mcp`'s stdio) against POST /exec itself. */
async function run(ctx: BenchContext): Promise<ScenarioResult[]> {
  await createBox(ctx, BOX);
  const rest = async () => {
    const { ms, value } = await timed(() => execInBox(ctx, BOX, ['true']));
    if (value.exit_code !== 0) throw new Error(`REST exec: exit ${value.exit_code}`);
    return ms;
  };
  const results: ScenarioResult[] = [];
  for (const transport of ['http', 'stdio'] as const) {
    const client = await connect(ctx, transport);
    try {
      const mcp = async () => {
        const { ms, value } = await timed(() =>
          client.callTool({ name: 'exec', arguments: { project: ctx.project, box: BOX, command: ['true'] } }),
        );
        if (value.isError) throw new Error(`MCP exec over ${transport}: ${JSON.stringify(value.content)}`);
        return ms;
      };
      progress(`MCP exec over ${transport}: warming up, then ${ctx.n} runs each against REST, alternating`);
      await alternate(WARMUP, mcp, rest);
      const runs = await alternate(ctx.n, mcp, rest);
      results.push(
        ratioResult(`MCP exec ['true'] over ${transport} vs REST`, runs, null, [
          '"raw" here is POST /exec itself; MCP calls it (one tool call: one REST call)',
        ]),
      );
    } finally {
      await client.close();
    }
  }
  return results;
}

export const mcpExec: BenchScenario = { name: 'mcp exec round trip', run };
