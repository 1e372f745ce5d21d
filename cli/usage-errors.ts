import type { Command, CommanderError, Option } from 'commander';
import { UsageError } from './options';

/** Help was asked for (or shown because a command was missing): not an error. */
export class HelpShown extends Error {
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

/** `unknown option '--cpus=2'` on a switch reads better as "--cpus takes no value". */
function unknownOption(message: string, cmd: Command): UsageError {
  const flag = /^unknown option '([^']+)'/.exec(message)?.[1] ?? '';
  const switchName = flag.includes('=') ? flag.slice(0, flag.indexOf('=')) : undefined;
  const isSwitch = (o: Option) => o.long === switchName && !o.required && !o.optional;
  if (switchName && [cmd, ...(cmd.parent ? [cmd.parent] : [])].some((c) => c.options.some(isSwitch)))
    return new UsageError(`${switchName} takes no value`);
  return new UsageError(message.replace(/^unknown option '([^']+)'/, 'unknown option $1'));
}

function unknownCommand(message: string, cmd: Command): UsageError {
  const name = /^unknown command '([^']+)'/.exec(message)?.[1] ?? '';
  const suggestion = /\(Did you mean (\S+)\?\)/.exec(message)?.[1];
  if (cmd.parent)
    return new UsageError(
      `unknown command "${cmd.name()} ${name}"; try: ${cmd.commands.map((c) => `${cmd.name()} ${c.name()}`).join(', ')}`,
    );
  return new UsageError(`unknown command "${name}"${suggestion ? `; did you mean ${suggestion}?` : ''}`);
}

/** Commander's errors, in our words: what is wrong, and the command's usage line where it helps. */
export function usageError(err: CommanderError, cmd: Command): Error {
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
    case 'commander.unknownOption':
      return unknownOption(message, cmd);
    case 'commander.unknownCommand':
      return unknownCommand(message, cmd);
    default:
      return new UsageError(message);
  }
}
