import readline from 'node:readline/promises';

/**
 * Asks a yes/no question on the terminal (stdin and stderr both terminals); "y" or "yes" is yes.
 * null when there is no terminal to ask on (a script, a pipe): the caller refuses instead.
 */
export async function confirm(
  io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream },
  question: string,
): Promise<boolean | null> {
  if (!io.stdin.isTTY || !io.stderr.isTTY) return null;
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/**
 * Goes on when the user says yes on the terminal; otherwise throws `declined` (they said no) or
 * `refusal` (no terminal to ask on: it names the flag that forces it).
 */
export async function askOrRefuse(
  io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream },
  question: string,
  { declined, refusal }: { declined: string; refusal: string },
): Promise<void> {
  const answer = await confirm(io, question);
  if (answer === true) return;
  throw new Error(answer === false ? declined : refusal);
}
