import type { Command } from 'commander';
import type { EgressRecord } from '../../shared/schemas/egress';
import type { Cli } from '../actions';
import type { Context } from '../context';
import { openEventStream } from '../event-stream';
import { formatBytes, table } from '../output';
import { print } from '../print';
import { commandModule } from '../program';

const columns = [
  { header: 'TIME', get: (r: EgressRecord) => r.at.slice(11, 19) },
  { header: 'VERDICT', get: (r: EgressRecord) => (r.allowed ? 'allowed' : 'denied') },
  { header: 'PROTO', get: (r: EgressRecord) => r.protocol },
  { header: 'HOST', get: (r: EgressRecord) => r.host },
  { header: 'PORT', get: (r: EgressRecord) => (r.port ? String(r.port) : '') },
  { header: 'BYTES', get: (r: EgressRecord) => (r.allowed ? formatBytes(r.bytes) : '') },
];

/** Records as rows (the header only with the first batch), or one JSON object a line. */
function printRecords(ctx: Context, records: EgressRecord[], header: boolean): void {
  if (ctx.format !== 'table') {
    for (const r of records) ctx.stdout.write(`${JSON.stringify(r)}\n`);
    return;
  }
  if (!records.length) return;
  const lines = table(records, columns).split('\n');
  ctx.stdout.write(`${(header ? lines : lines.slice(1)).join('\n')}`);
}

/**
 * Follows the box's log: the event stream first (so nothing falls between), then what is there,
 * then the records newer than the last printed at each `box.egress` event of the box, until
 * Ctrl-C or the box is deleted.
 */
async function follow(ctx: Context, name: string): Promise<void> {
  const stream = await openEventStream(ctx.fetch, ctx.connection.url, ctx.connection.token);
  try {
    const { items } = await ctx.client.boxEgress(ctx.project, name);
    printRecords(ctx, items, true);
    let last = items.at(-1)?.id ?? 0;
    let header = !items.length;
    for await (const event of stream.events) {
      if (event.type === 'reset' || event.project !== ctx.project) continue;
      if (event.type === 'box.deleted' && event.data.box.name === name) return;
      if (event.type !== 'box.egress' || event.data.box !== name || event.data.last <= last) continue;
      const { items: newer } = await ctx.client.boxEgress(ctx.project, name, last);
      printRecords(ctx, newer, header && newer.length > 0);
      if (newer.length) header = false;
      last = newer.at(-1)?.id ?? last;
    }
  } finally {
    stream.close();
  }
}

/** `box egress NAME [-f]`: the box's recent connections (its egress log), or follow it. */
function registerEgress(program: Command, cli: Cli): void {
  const cmd = program
    .command('egress <NAME>')
    .description(
      "the box's recent connections: denied attempts at once, allowed connections once they end (with their bytes)",
    )
    .option('-f, --follow', 'print new records as they come, until Ctrl-C or the box is deleted');
  cli.action<{ follow?: boolean }>(cmd, async (ctx, [name], opts) => {
    if (opts.follow) return follow(ctx, name!);
    const { items } = await ctx.client.boxEgress(ctx.project, name!);
    print(ctx, items, () => (items.length ? table(items, columns) : 'no connections recorded yet\n'));
  });
}

export const egress = commandModule('egress', [registerEgress]);
