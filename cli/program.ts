import { Command, Option } from 'commander';
import { ApiError } from '../shared/errors';
import { BOXDESK_VERSION } from '../shared/version';
import { Cli } from './actions';
import { failureText } from './cli-words';
import type { Io } from './context';
import { UsageError } from './options';
import { FORMATS } from './output';
import { HelpShown, usageError } from './usage-errors';

/**
 * One area of the CLI (STYLE.md: a resource is a module). `cli/main.ts` lists
 * the modules, one line each; help and completion are read from the program
 * they build, so a new command shows in both with no other edit.
 */
export interface CommandModule {
  /** The area, as main.ts lists it: "boxes", "volumes". */
  name: string;
  /** Adds the area's commands and the groups it owns (`box volume …`) to the program. */
  register(program: Command, cli: Cli): void;
  /** A paragraph for the end of `box --help`: what the area's commands do that their own help cannot say. */
  help?: string;
}

/** Adds some of an area's commands to the program. */
export type Registrar = (program: Command, cli: Cli) => void;

/** An area whose commands these functions add, in this order. */
export function commandModule(name: string, registrars: readonly Registrar[], help?: string): CommandModule {
  return {
    name,
    help,
    register(program, cli) {
      for (const register of registrars) register(program, cli);
    },
  };
}

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
          the local core               where it says it listens (<data dir>/listening.json),
                                       else http://127.0.0.1:$BOXDESK_PORT (default 7420)
  Token:  --token
          SERVICE_PROFILE_<NAME>_TOKEN
          SERVICE_TOKEN
          the local core's token file  read only when no token is given above;
                                       <data dir>/token, where the data dir is
                                       $BOXDESK_DATA_DIR, else $XDG_DATA_HOME/boxdesk or
                                       ~/.local/share/boxdesk (Linux), ~/Library/Application
                                       Support/Boxdesk (macOS), %APPDATA%\\Boxdesk (Windows)

Global options go before or after the command. Options take "--opt value" or
"--opt=value"; K=V options repeat. Everything after "--" is passed on as is.

Exit status: 0 on success, 1 when the API refuses or fails (its detail is on
stderr), 2 on a usage error.`;

const FOOTER = `Run "box COMMAND --help" for a command's options, "box completion bash|zsh|fish"
for shell completion.
`;

/** Every command below the root, depth first. */
export function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Errors reported our way on every command, and the global options readable after any command. */
function finish(program: Command): void {
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
}

/** The program with its global options and every module's commands, each reporting errors our way. */
export function buildProgram(io: Io, modules: readonly CommandModule[]): { program: Command; cli: Cli } {
  const cli = new Cli(io);
  const notes = modules.flatMap((m) => (m.help ? [m.help] : []));
  const program = new Command('box')
    .description('box — drive Boxdesk sandboxes from the terminal')
    .usage('[global options] COMMAND [options] [args]')
    .enablePositionalOptions()
    .helpOption('-h, --help', 'show help')
    .version(`box ${BOXDESK_VERSION}`, '-V, --version', 'print the version')
    .helpCommand('help [COMMAND]', 'show help for a command')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: () => undefined,
    })
    .addHelpText('after', [PRECEDENCE, ...notes, FOOTER].join('\n'));
  for (const option of globalOptions()) program.addOption(option.helpGroup('Global options:'));
  for (const module of modules) module.register(program, cli);
  finish(program);
  return { program, cli };
}

/** Runs one command line; returns the exit status. */
export async function run(argv: readonly string[], io: Io, modules: readonly CommandModule[]): Promise<number> {
  const { program, cli } = buildProgram(io, modules);
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
    stderr.write(`${failureText(err)}\n`);
    return 1;
  }
  stderr.write(`box: ${failureText(err)}\n`);
  return 1;
}
