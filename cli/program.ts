import { Command, CommanderError, Option } from 'commander';
import { BoxdeskClient } from '../shared/client';
import { ApiError } from '../shared/errors';
import type { Context, GlobalOptions, Io } from './context';
import { UsageError } from './options';
import { FORMATS, parseFormat } from './output';
import { resolveConnection } from './profile';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Registers one area's subcommands on the program (see the comment at the top of main.ts). */
export type Area = (program: Command, cli: Cli) => void;

export interface ActionOptions {
  /**
   * For commands that run another program (`box exec NAME CMD -x`): after this
   * many arguments, this command's own options are still read until the first
   * other word or `--`; from there on everything is passed through untouched
   * as the last arguments. Declare the command with `.passThroughOptions()`.
   */
  passThroughAfter?: number;
}

/** What a command's action gets: its arguments in order, and its options merged with the global ones. */
export type Action<O, C> = (ctx: C, args: string[], opts: O & GlobalOptions) => Promise<number | void>;

function globalOptions(): Option[] {
  return [
    new Option('--url <URL>', 'the core to talk to'),
    new Option('--token <TOKEN>', 'API token'),
    new Option('--profile <NAME>', 'read SERVICE_PROFILE_<NAME>_URL and _TOKEN'),
    new Option('-p, --project <P>', 'project (default: $BOX_PROJECT, else "default")'),
    new Option('-o, --output <FORMAT>', 'output format, table by default').choices(FORMATS),
  ];
}

const PRECEDENCE = `
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

Global options go before or after the command. Options take "--opt value" or
"--opt=value"; K=V options repeat. Everything after "--" is passed on as is.

Exit status: 0 on success, 1 when the API refuses or fails (its detail is on
stderr), 2 on a usage error; exec and console exit with the remote command's code.
"service create", "deploy" and "rollback" start a deployment and return at once;
with --wait they show its steps and exit 0 once it is live, 1 (with the reason)
if it failed.
Run "box COMMAND --help" for a command's options, "box completion bash|zsh|fish"
for shell completion.
`;

/** Help was asked for (or shown because a command was missing): not an error. */
class HelpShown extends Error {
  constructor(readonly exitCode: number) {
    super('help shown');
  }
}

/** "box token create", for messages. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Every command below the root, depth first. */
export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Commander's errors, in our words: what is wrong, and the command's usage line where it helps. */
function usageError(err: CommanderError, cmd: Command): Error {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') {
    return new HelpShown(err.exitCode === 0 ? 0 : 2);
  }
  const message = err.message.replace(/^error: /, '');
  const usage = `usage: ${commandPath(cmd)} ${cmd.usage()}`;
  switch (err.code) {
    case 'commander.missingArgument':
      return new UsageError(`${message.replace(/^missing required argument '(.+)'$/, 'missing $1')}\n${usage}`);
    case 'commander.excessArguments':
      return new UsageError(`unexpected argument "${cmd.args[cmd.registeredArguments.length]}"\n${usage}`);
    case 'commander.optionMissingArgument': {
      const m = /^option '(?:(-\w), )?(--?[\w-]+) <(.+)>' argument missing$/.exec(message);
      return new UsageError(m ? `${m[2]} needs a value (${m[3]})` : message);
    }
    case 'commander.invalidArgument': {
      const m = /^option '(?:-\w, )?(--?[\w-]+) <.+>' argument '(.*)' is invalid\. Allowed choices are (.*)\.$/s.exec(
        message,
      );
      return new UsageError(m ? `${m[1]} must be one of ${m[3]}, got "${m[2]}"` : message);
    }
    case 'commander.unknownOption': {
      const flag = /^unknown option '([^']+)'/.exec(message)?.[1] ?? '';
      const switchName = flag.includes('=') ? flag.slice(0, flag.indexOf('=')) : undefined;
      const isSwitch = (o: Option) => o.long === switchName && !o.required && !o.optional;
      if (switchName && [cmd, ...(cmd.parent ? [cmd.parent] : [])].some((c) => c.options.some(isSwitch)))
        return new UsageError(`${switchName} takes no value`);
      return new UsageError(message.replace(/^unknown option '([^']+)'/, 'unknown option $1'));
    }
    case 'commander.unknownCommand': {
      const name = /^unknown command '([^']+)'/.exec(message)?.[1] ?? '';
      const suggestion = /\(Did you mean (\S+)\?\)/.exec(message)?.[1];
      if (cmd.parent)
        return new UsageError(
          `unknown command "${cmd.name()} ${name}"; try: ${cmd.commands.map((c) => `${cmd.name()} ${c.name()}`).join(', ')}`,
        );
      return new UsageError(`unknown command "${name}"${suggestion ? `; did you mean ${suggestion}?` : ''}`);
    }
    default:
      return new UsageError(message);
  }
}

/** Builds the Context from the global options. */
export function buildContext(opts: GlobalOptions, io: Io): Context {
  const project = opts.project ?? (io.platform.env.BOX_PROJECT || 'default');
  if (!DNS_LABEL.test(project))
    throw new UsageError(`project "${project}" is not a DNS label (lower-case letters, digits, hyphens)`);
  const format = parseFormat(opts.output);
  const connection = resolveConnection({ url: opts.url, token: opts.token, profile: opts.profile }, io.platform);
  const client = new BoxdeskClient({ baseUrl: connection.url, token: connection.token, fetch: io.fetch });
  return { client, connection, project, format, stdout: io.stdout, stderr: io.stderr, fetch: io.fetch };
}

/** What every area gets besides the program: a way to turn a function into a command's action. */
export class Cli {
  /** The exit status of the action that ran. */
  exitCode = 0;

  constructor(readonly io: Io) {}

  /** The command's options merged with its ancestors' (global options may sit at any level); the nearest wins. */
  options<O>(cmd: Command): O & GlobalOptions {
    const merged: Record<string, unknown> = {};
    for (let c: Command | null = cmd; c; c = c.parent) {
      for (const [k, v] of Object.entries(c.opts())) if (merged[k] === undefined && v !== undefined) merged[k] = v;
    }
    return merged as O & GlobalOptions;
  }

  /** Makes `run` the command's action, with a Context for talking to the core; its number is the exit status. */
  action<O = Record<string, unknown>>(cmd: Command, run: Action<O, Context>, options: ActionOptions = {}): Command {
    return cmd.action(async () => {
      const args = this.arguments(cmd, options);
      const opts = this.options<O>(cmd);
      const ctx = buildContext(opts, this.io);
      try {
        this.exitCode = (await run(ctx, args, opts)) ?? 0;
      } catch (err) {
        const { connection } = ctx;
        if (err instanceof ApiError && err.code === 'unauthorized' && connection.tokenSource === 'none') {
          throw new ApiError(err.code, err.message, {
            errors: err.errors,
            hint: `no token given and ${connection.tokenFile} is missing or empty: pass --token or set SERVICE_PROFILE_<NAME>_TOKEN`,
          });
        }
        throw err;
      }
    });
  }

  /** Like action, for commands that do not talk to a core (serve, completion). */
  localAction<O = Record<string, unknown>>(cmd: Command, run: Action<O, Io>, options: ActionOptions = {}): Command {
    return cmd.action(async () => {
      const args = this.arguments(cmd, options);
      this.exitCode = (await run(this.io, args, this.options<O>(cmd))) ?? 0;
    });
  }

  private arguments(cmd: Command, options: ActionOptions): string[] {
    const n = options.passThroughAfter;
    if (n === undefined || cmd.args.length <= n) return [...cmd.args];
    // Commander stopped at the first argument; read our options up to the remote command.
    const { operands, unknown } = cmd.parseOptions(cmd.args.slice(n));
    if (unknown.length > 0) {
      if (unknown[0] === '-h' || unknown[0] === '--help') cmd.help();
      throw new UsageError(`unknown option ${unknown[0]}\nusage: ${commandPath(cmd)} ${cmd.usage()}`);
    }
    return [...cmd.args.slice(0, n), ...operands];
  }
}

/** The program with its global options and every area's commands, each reporting errors our way. */
export function buildProgram(io: Io, areas: readonly Area[]): { program: Command; cli: Cli } {
  const cli = new Cli(io);
  const program = new Command('box')
    .description('box — drive Boxdesk sandboxes from the terminal')
    .usage('[global options] COMMAND [options] [args]')
    .enablePositionalOptions()
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [COMMAND]', 'show help for a command')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: () => undefined,
    })
    .addHelpText('after', PRECEDENCE);
  for (const option of globalOptions()) program.addOption(option.helpGroup('Global options:'));
  for (const area of areas) area(program, cli);

  for (const cmd of [program, ...allCommands(program)]) {
    cmd.exitOverride((err) => {
      throw usageError(err, cmd);
    });
    if (cmd === program) continue;
    // Global options may also follow the command: each command reads them too, without listing them again.
    for (const option of globalOptions()) {
      if (!cmd.options.some((o) => o.long === option.long || (option.short && o.short === option.short)))
        cmd.addOption(option.hideHelp());
    }
  }
  return { program, cli };
}

/** Runs one command line; returns the exit status. */
export async function run(argv: readonly string[], io: Io, areas: readonly Area[]): Promise<number> {
  const { program, cli } = buildProgram(io, areas);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return cli.exitCode;
  } catch (err) {
    if (err instanceof HelpShown) return err.exitCode;
    return report(err, io.stderr);
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
