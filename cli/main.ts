import { BoxdeskClient, type FetchLike } from '../shared/client';
import { ApiError } from '../shared/errors';
import { UsageError, parseArgs, splitCommand, type OptionSpecs } from './args';
import { boxCommands } from './commands/boxes';
import { execCommands } from './commands/exec';
import { systemCommands } from './commands/system';
import type { Command, Context } from './context';
import { parseFormat } from './output';
import { realPlatform, resolveConnection, type Platform } from './profile';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export const GLOBAL_OPTIONS: OptionSpecs = {
  url: { kind: 'string', value: 'URL', help: 'the core to talk to' },
  token: { kind: 'string', value: 'TOKEN', help: 'API token' },
  profile: { kind: 'string', value: 'NAME', help: 'read SERVICE_PROFILE_<NAME>_URL and _TOKEN' },
  project: { kind: 'string', short: 'p', value: 'P', help: 'project (default: $BOX_PROJECT, else "default")' },
  output: { kind: 'string', short: 'o', value: 'FORMAT', help: 'table (default), json or yaml' },
  help: { kind: 'boolean', short: 'h', help: 'show help' },
};

export const COMMANDS: Command[] = [...boxCommands, ...execCommands, ...systemCommands];
const GROUPS = new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!));

function optionLines(specs: OptionSpecs): string {
  const rows = Object.entries(specs).map(([name, s]) => [`${s.short ? `-${s.short}, ` : '    '}--${name}${s.value ? ` ${s.value}` : ''}`, s.help] as const);
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`).join('\n');
}

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `box — drive Boxdesk sandboxes from the terminal

Usage: box [global options] COMMAND [options] [args]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Global options:
${optionLines(GLOBAL_OPTIONS)}

Which core and token (first match wins):
  URL:    --url
          SERVICE_PROFILE_<NAME>_URL   profile from --profile or $SERVICE_PROFILE;
                                       NAME upper-cased, "-" becomes "_"
          SERVICE_URL
          SERVICE_API_URL
          the local core               http://127.0.0.1:$BOXDESK_PORT (default 7420)
  Token:  --token
          SERVICE_PROFILE_<NAME>_TOKEN
          the local core's token file  <data dir>/token, where the data dir is
                                       $BOXDESK_DATA_DIR, else $XDG_DATA_HOME/boxdesk or
                                       ~/.local/share/boxdesk (Linux), ~/Library/Application
                                       Support/Boxdesk (macOS), %APPDATA%\\Boxdesk (Windows)

Exit status: 0 on success, 1 when the API refuses or fails (its detail is on
stderr), 2 on a usage error; exec and console exit with the remote command's code.
Run "box COMMAND --help" for a command's options.
`;
}

function commandHelp(cmd: Command): string {
  const options = cmd.options ? `\nOptions:\n${optionLines(cmd.options)}\n` : '';
  return `${cmd.summary}\n\nUsage: ${cmd.usage}\n${options}\nGlobal options:\n${optionLines(GLOBAL_OPTIONS)}\n`;
}

export interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  platform: Platform;
  fetch: FetchLike;
}

/** Runs one command line; returns the exit status. */
export async function main(argv: string[], io: Io): Promise<number> {
  const { stdout, stderr } = io;
  try {
    const { command, args } = splitCommand(argv, GLOBAL_OPTIONS, (first) => (GROUPS.has(first) ? 2 : 1));
    const name = command.join(' ');
    const cmd = COMMANDS.find((c) => c.name === name);
    if (!cmd) {
      const globals = parseArgs(args, GLOBAL_OPTIONS);
      if (command.length === 0 || globals.booleans.has('help') || command[0] === 'help') {
        stdout.write(mainHelp());
        return command.length === 0 && !globals.booleans.has('help') ? 2 : 0;
      }
      throw new UsageError(GROUPS.has(command[0]!) ? `unknown command "${name}"; try: ${COMMANDS.filter((c) => c.name.startsWith(`${command[0]} `)).map((c) => c.name).join(', ')}` : `unknown command "${name}"`);
    }
    const parsed = parseArgs(args, { ...GLOBAL_OPTIONS, ...cmd.options }, { maxPositionals: cmd.maxPositionals });
    if (parsed.booleans.has('help')) {
      stdout.write(commandHelp(cmd));
      return 0;
    }
    const project = parsed.strings.project ?? (io.platform.env.BOX_PROJECT || 'default');
    if (!DNS_LABEL.test(project)) throw new UsageError(`project "${project}" is not a DNS label (lower-case letters, digits, hyphens)`);
    const format = parseFormat(parsed.strings.output);
    const connection = resolveConnection({ url: parsed.strings.url, token: parsed.strings.token, profile: parsed.strings.profile }, io.platform);
    const client = new BoxdeskClient({ baseUrl: connection.url, token: connection.token, fetch: io.fetch });
    const ctx: Context = { client, connection, project, format, stdout, stderr };
    try {
      return (await cmd.run(ctx, parsed)) ?? 0;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized' && connection.tokenSource === 'none') {
        throw new ApiError(err.code, err.message, { errors: err.errors, hint: `no token given and ${connection.tokenFile} is missing or empty: pass --token or set SERVICE_PROFILE_<NAME>_TOKEN` });
      }
      throw err;
    }
  } catch (err) {
    return report(err, stderr);
  }
}

function report(err: unknown, stderr: NodeJS.WriteStream): number {
  if (err instanceof UsageError) {
    stderr.write(`box: ${err.message}\nRun "box --help" for usage.\n`);
    return 2;
  }
  if (err instanceof ApiError) {
    stderr.write(`${err.message}\n`);
    for (const e of err.errors ?? []) stderr.write(`  ${e.path}: ${e.message}\n`);
    if (err.hint) stderr.write(`hint: ${err.hint}\n`);
    return 1;
  }
  stderr.write(`box: ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

const nodeFetch: FetchLike = (url, init) => fetch(url, init as RequestInit);

export async function cli(argv: string[] = process.argv.slice(2)): Promise<void> {
  process.exitCode = await main(argv, { stdout: process.stdout, stderr: process.stderr, platform: realPlatform(), fetch: nodeFetch });
}
