import type { Command } from 'commander';
import { BoxdeskClient } from '../shared/client';
import { ApiError } from '../shared/errors';
import type { Context, GlobalOptions, Io } from './context';
import { UsageError } from './options';
import { failureText } from './cli-words';
import { parseFormat, prepareFormat } from './output';
import { deleteEach } from './print';
import { resolveConnection } from '../sdk/src/connection';
import { commandPath } from './usage-errors';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export interface ActionOptions {
  /**
   * For commands that run another program (`box exec NAME CMD -x`): after this
   * many arguments, this command's own options are still read until the first
   * other word or `--`; from there on everything is passed through untouched
   * as the last arguments. Declare the command with `.passThroughOptions()`.
   */
  passThroughAfter?: number;
  /**
   * The exit status when Boxdesk itself fails (the box is missing, the core refuses or cannot be
   * reached): `box exec` answers 125, as `docker exec` does, so it never looks like the command's
   * own code. Usage errors still exit 2. Default 1.
   */
  failureStatus?: number;
}

/** What a command's action gets: its arguments in order, and its options merged with the global ones. */
export type Action<O, C> = (ctx: C, args: string[], opts: O & GlobalOptions) => Promise<number | void>;

/** Builds the Context from the global options. */
export function buildContext(opts: GlobalOptions, io: Io): Context {
  const project = opts.project ?? (io.platform.env.BOX_PROJECT || 'default');
  if (!DNS_LABEL.test(project))
    throw new UsageError(`project "${project}" is not a DNS label (lower-case letters, digits, hyphens)`);
  const format = parseFormat(opts.output);
  const connection = resolveConnection({ url: opts.url, token: opts.token, profile: opts.profile }, io.platform);
  const client = new BoxdeskClient({ baseUrl: connection.url, token: connection.token, fetch: io.fetch });
  const stdin = io.stdin ?? process.stdin;
  return { client, connection, project, format, stdin, stdout: io.stdout, stderr: io.stderr, fetch: io.fetch };
}

/** What every command module gets besides the program: a way to turn a function into a command's action. */
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
      await prepareFormat(ctx.format);
      try {
        this.exitCode = (await run(ctx, args, opts)) ?? 0;
      } catch (caught) {
        const { connection } = ctx;
        let err = caught;
        if (err instanceof ApiError && err.code === 'unauthorized' && connection.tokenSource === 'none') {
          err = new ApiError(err.code, err.message, {
            errors: err.errors,
            hint: `no token given and ${connection.tokenFile} is missing or empty: pass --token, or set SERVICE_TOKEN or SERVICE_PROFILE_<NAME>_TOKEN`,
          });
        }
        if (options.failureStatus === undefined || err instanceof UsageError) throw err;
        this.io.stderr.write(`${err instanceof ApiError ? '' : 'box: '}${failureText(err)}\n`);
        this.exitCode = options.failureStatus;
      }
    });
  }

  /**
   * An `rm … ID...` command: deletes each id of its last (variadic) argument in
   * turn; a table format says so for each. Every id is tried: the failures are
   * listed and the status is 1 if any failed. `remove` gets the arguments before
   * the ids too (`volume backup rm NAME ID...`) and the command's options.
   */
  removal<O = Record<string, unknown>>(
    cmd: Command,
    remove: (ctx: Context, id: string, leading: string[], opts: O & GlobalOptions) => Promise<unknown>,
    said: (id: string) => string,
  ): Command {
    const leading = cmd.registeredArguments.length - 1;
    return this.action<O>(cmd, (ctx, args, opts) =>
      deleteEach(ctx, args.slice(leading), (id) => remove(ctx, id, args.slice(0, leading), opts), said),
    );
  }

  /** Like action, for commands that do not talk to a core (serve, completion). */
  localAction<O = Record<string, unknown>>(cmd: Command, run: Action<O, Io>, options: ActionOptions = {}): Command {
    return cmd.action(async () => {
      const args = this.arguments(cmd, options);
      const opts = this.options<O>(cmd);
      if (opts.output !== undefined) await prepareFormat(parseFormat(opts.output));
      this.exitCode = (await run(this.io, args, opts)) ?? 0;
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
