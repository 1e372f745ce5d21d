import type { Command } from 'commander';
import { readNdjson } from '../../shared/calls/byte-stream';
import type { BoxStats } from '../../shared/schemas/stats';
import type { Context } from '../context';
import { formatBytes, render, table } from '../output';
import type { Cli } from '../actions';
import { commandModule } from '../program';

/** One sample as a table row: what `docker stats` shows, in the same order. */
function row(name: string, s: BoxStats): string {
  return table(
    [s],
    [
      { header: 'BOX', get: () => name },
      { header: 'CPU %', get: (x) => x.cpu_percent.toFixed(1) },
      { header: 'MEM', get: (x) => `${formatBytes(x.memory_bytes)} / ${formatBytes(x.memory_limit_bytes)}` },
      {
        header: 'MEM %',
        get: (x) => (x.memory_limit_bytes ? ((100 * x.memory_bytes) / x.memory_limit_bytes).toFixed(1) : '-'),
      },
      { header: 'NET RX/TX', get: (x) => `${formatBytes(x.net_rx_bytes)} / ${formatBytes(x.net_tx_bytes)}` },
      { header: 'BLOCK R/W', get: (x) => `${formatBytes(x.block_read_bytes)} / ${formatBytes(x.block_write_bytes)}` },
      { header: 'PIDS', get: (x) => x.pids },
    ],
  );
}

/** Prints the x-ndjson stream's samples as they come: the header once, then one row per sample. */
async function printStream(ctx: Context, name: string, body: AsyncIterable<Uint8Array>): Promise<void> {
  let first = true;
  for await (const sample of readNdjson<BoxStats>(body)) {
    if (ctx.format === 'json') ctx.stdout.write(`${JSON.stringify(sample)}\n`);
    else if (ctx.format === 'yaml') ctx.stdout.write(render('yaml', [sample], () => ''));
    else {
      const lines = row(name, sample).split('\n');
      ctx.stdout.write(`${(first ? lines.slice(0, 2) : lines.slice(1, 2)).join('\n')}\n`);
      first = false;
    }
  }
}

/** `box stats NAME [--stream]`: GET …/stats, or its x-ndjson stream (one line a second). */
function registerStats(program: Command, cli: Cli): void {
  const cmd = program
    .command('stats <NAME>')
    .description("a running box's CPU, memory, network, block I/O and process count")
    .option('--stream', 'a new sample every second until Ctrl-C or the box stops');
  cli.action<{ stream?: boolean }>(cmd, async (ctx, [name], opts) => {
    if (!opts.stream) {
      const sample = await ctx.client.boxStats(ctx.project, name!);
      ctx.stdout.write(render(ctx.format, sample, () => row(name!, sample)));
      return;
    }
    const res = await ctx.client.boxStatsStream(ctx.project, name!);
    await printStream(ctx, name!, res.body as AsyncIterable<Uint8Array>);
  });
}

export const stats = commandModule('stats', [registerStats]);
