import { bashScript, fishScript, zshScript } from '../completion-scripts';
import { UsageError } from '../options';
import type { Command } from 'commander';
import type { Cli } from '../actions';
import { commandModule } from '../program';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript };

/** `box completion bash|zsh|fish`: read from the whole program, so every module's commands are in it. */
function registerCompletion(program: Command, cli: Cli): void {
  const cmd = program
    .command('completion')
    .description('print a shell completion script: source <(box completion bash)')
    .argument('<SHELL>', 'bash, zsh or fish');
  cli.localAction(cmd, async (io, [shell]) => {
    if (!Object.hasOwn(SHELLS, shell!)) throw new UsageError(`no completion for "${shell}": use bash, zsh or fish`);
    io.stdout.write(SHELLS[shell as keyof typeof SHELLS](program));
  });
}

export const completion = commandModule('completion', [registerCompletion]);
