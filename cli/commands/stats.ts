import type { BoxStats } from '../../shared/schemas/stats';
import type { Area } from '../program';
import { render, table } from '../output';

const MIB = 1024 * 1024;

function bytes(n: number): string {
  return n >= 1024 * MIB ? `${(n / 1024 / MIB).toFixed(2)} GiB` : `${(n / MIB).toFixed(1)} MiB`;
}

/** One sample as a table row: what `docker stats` shows, in the same order. */
function row(name: string, s: BoxStats): string {
  return table(
    [s],
    [
      { header: 'BOX', get: () => name },
      { header: 'CPU %', get: (x) => x.cpu_percent.toFixed(1) },
      { header: 'MEM', get: (x) => `${bytes(x.memory_bytes)} / ${bytes(x.memory_limit_bytes)}` },
      {
        header: 'MEM %',
        get: (x) => (x.memory_limit_bytes ? ((100 * x.memory_bytes) / x.memory_limit_bytes).toFixed(1) : '-'),
      },
      { header: 'NET RX/TX', get: (x) => `${bytes(x.net_rx_bytes)} / ${bytes(x.net_tx_bytes)}` },
      { header: 'BLOCK R/W', get: (x) => `${bytes(x.block_read_bytes)} / ${bytes(x.block_write_bytes)}` },
      { header: 'PIDS', get: (x) => x.pids },
    ],
  );
}

/** `box stats NAME [--stream]`: GET …/stats, or its x-ndjson stream (one line a second). */
export const registerStatsCommands: Area = (program, cli) => {
  const stats = program
    .command('stats')
    .description("a running box's CPU, memory, network, block I/O and process count")
    .argument('<NAME>')
    .option('--stream', 'a new sample every second until Ctrl-C or the box stops');
  cli.action<{ stream?: boolean }>(stats, async (ctx, [name], opts) => {
    if (!opts.stream) {
      const sample = await ctx.client.boxStats(ctx.project, name!);
      ctx.stdout.write(render(ctx.format, sample, () => row(name!, sample)));
      return;
    }
    const res = await ctx.client.boxStatsStream(ctx.project, name!);
    let pending = '';
    let first = true;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      pending += Buffer.from(chunk).toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (!line) continue;
        const sample = JSON.parse(line) as BoxStats;
        if (ctx.format === 'json') ctx.stdout.write(`${JSON.stringify(sample)}\n`);
        else if (ctx.format === 'yaml') ctx.stdout.write(render('yaml', [sample], () => ''));
        else {
          // The header once, then one row per sample.
          const lines = row(name!, sample).split('\n');
          ctx.stdout.write(`${(first ? lines.slice(0, 2) : lines.slice(1, 2)).join('\n')}\n`);
          first = false;
        }
      }
    }
  });
};
