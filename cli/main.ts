/*
 * The `box` CLI: commander parses, each area of cli/commands/ registers its commands.
 *
 * To add a command: in cli/commands/<area>.ts export `register<Area>Commands: Area`
 * (program.ts), which calls `program.command('name')` (or a group:
 * `program.command('volume')` then `.command('ls')` on it) and hands the
 * command to `cli.action(cmd, async (ctx, args, opts) => …)`. `ctx` is the
 * Context built from the global options (client, connection, project, format,
 * stdout, stderr); return a number to set the exit status. Throw UsageError
 * (options.ts) for a bad command line, let ApiError through for the API's
 * refusals. A new area is one file plus one line in AREAS below; completion
 * and help pick its commands up by themselves.
 */
import type { FetchLike } from '../shared/client';
import { registerBoxCommands } from './commands/boxes';
import { registerCompletionCommand } from './commands/completion';
import { registerExecCommands } from './commands/exec';
import { registerFileCommands } from './commands/files';
import { registerPublishingCommands } from './commands/publishing';
import { registerServeCommand } from './commands/serve';
import { registerServiceCommands } from './commands/services';
import { registerSnapshotCommands } from './commands/snapshots';
import { registerStatsCommands } from './commands/stats';
import { registerSystemCommands } from './commands/system';
import { registerVolumeCommands } from './commands/volumes';
import type { Io } from './context';
import { realPlatform } from './profile';
import { run, type Area } from './program';

export const AREAS: readonly Area[] = [
  registerBoxCommands,
  registerExecCommands,
  registerStatsCommands,
  registerFileCommands,
  registerSystemCommands,
  registerSnapshotCommands,
  registerPublishingCommands,
  registerVolumeCommands,
  registerServiceCommands,
  registerServeCommand,
  registerCompletionCommand,
];

/** Runs one command line; returns the exit status. */
export function main(argv: readonly string[], io: Io, areas: readonly Area[] = AREAS): Promise<number> {
  return run(argv, io, areas);
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
