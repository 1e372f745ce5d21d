/*
 * The `box` CLI: commander parses; each area of cli/commands/ is a
 * CommandModule (program.ts) listed once in COMMANDS below.
 *
 * To add a command: in its area's module `register(program, cli)` calls
 * `program.command('name')` (or makes the area's group, `program.command('volume')`,
 * then `.command('ls')` on it) and hands the command to
 * `cli.action(cmd, async (ctx, args, opts) => …)`. `ctx` is the Context built
 * from the global options (client, connection, project, format, stdout,
 * stderr); return a number to set the exit status. Throw UsageError
 * (options.ts) for a bad command line, let ApiError through for the API's
 * refusals. A new area is one file in cli/commands/ plus one line below;
 * completion and help pick its commands up by themselves.
 */
import type { FetchLike } from '../shared/client';
import { bases } from './commands/bases';
import { boxes } from './commands/boxes';
import { completion } from './commands/completion';
import { exec } from './commands/exec';
import { egress } from './commands/egress';
import { files } from './commands/files';
import { jobs } from './commands/jobs';
import { mcp } from './commands/mcp';
import { publishing } from './commands/publishing';
import { regions } from './commands/regions';
import { serve } from './commands/serve';
import { services } from './commands/services';
import { snapshots } from './commands/snapshots';
import { stats } from './commands/stats';
import { secrets } from './commands/secrets';
import { system } from './commands/system';
import { upCommand } from './commands/up';
import { volumes } from './commands/volumes';
import type { Io } from './context';
import { realPlatform } from '../sdk/src/connection';
import { run, type CommandModule } from './program';

export const COMMANDS: readonly CommandModule[] = [
  boxes,
  exec,
  jobs,
  stats,
  egress,
  files,
  bases,
  snapshots,
  system,
  secrets,
  regions,
  publishing,
  volumes,
  services,
  serve,
  mcp,
  completion,
  upCommand,
];

/** Runs one command line; returns the exit status. */
export function main(argv: readonly string[], io: Io, modules: readonly CommandModule[] = COMMANDS): Promise<number> {
  return run(argv, io, modules);
}

const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit);

export async function cli(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    platform: realPlatform(),
    fetch: nodeFetch,
  });
}
