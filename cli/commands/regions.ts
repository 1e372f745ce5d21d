import type { Command } from 'commander';
import type { Region } from '../../shared/schemas/regions';
import type { Cli } from '../actions';
import { formatBytes } from '../output';
import { printList } from '../print';
import { commandModule } from '../program';

const regionColumns = [
  { header: 'NAME', get: (r: Region) => r.name },
  { header: 'ENGINE', get: (r: Region) => `${r.engine.name} ${r.engine.version ?? '?'}` },
  { header: 'STATUS', get: (r: Region) => (r.engine.up ? 'up' : `down: ${r.engine.reason ?? '?'}`) },
  { header: 'BOXES', get: (r: Region) => r.boxes },
  { header: 'CPUS', get: (r: Region) => r.cpus },
  { header: 'MEMORY', get: (r: Region) => (r.memory_bytes === null ? null : formatBytes(r.memory_bytes)) },
  { header: 'AT', get: (r: Region) => r.engine.url },
];

/** `box regions`: the engines the core drives (the first is where boxes go by default). */
function registerRegions(program: Command, cli: Cli): void {
  cli.action(
    program
      .command('regions')
      .description('list the regions: each engine the core drives, whether it is up, its boxes, CPUs and memory'),
    async (ctx) => printList(ctx, await ctx.client.regions(), regionColumns, 'no regions'),
  );
}

export const regions = commandModule('regions', [registerRegions]);
