import { bashScript, fishScript, zshScript } from '../completion-scripts';
import { UsageError } from '../options';
import type { Area } from '../program';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript };

export const registerCompletionCommand: Area = (program, cli) => {
  const completion = program
    .command('completion')
    .description('print a shell completion script: source <(box completion bash)')
    .argument('<SHELL>', 'bash, zsh or fish');
  cli.localAction(completion, async (io, [shell]) => {
    if (!Object.hasOwn(SHELLS, shell!)) throw new UsageError(`no completion for "${shell}": use bash, zsh or fish`);
    io.stdout.write(SHELLS[shell as keyof typeof SHELLS](program));
  });
};
