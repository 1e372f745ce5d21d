import { readNdjson } from '../../shared/calls/byte-stream';
import { ApiError } from '../../shared/errors';
import type { ExecRequest, ExecStreamLine } from '../../shared/schemas/exec';
import type { Context } from '../context';
import { UsageError, collect, stringMap, wholeNumber } from '../options';
import type { Cli } from '../actions';
import type { Command } from 'commander';
import { print } from '../print';
import { commandModule } from '../program';
import { runTerminal, terminalSize } from '../terminal';

/** `box exec`'s status when Boxdesk failed, not the command (as `docker exec`). */
export const BOXDESK_FAILED = 125;

/** A process exit status from a remote code: 0-255 as is, anything else 1. */
export function exitStatus(code: number | null): number {
  return code !== null && Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function streamExec(ctx: Context, name: string, body: ExecRequest): Promise<number> {
  const res = await ctx.client.execStream(ctx.project, name, body);
  for await (const line of readNdjson<ExecStreamLine | { type: 'error'; code: string; message: string }>(
    res.body as AsyncIterable<Uint8Array>,
  )) {
    if (line.type === 'stdout') ctx.stdout.write(line.data);
    else if (line.type === 'stderr') ctx.stderr.write(line.data);
    else if (line.type === 'error') throw new ApiError('internal', line.message);
    else if (line.type === 'exit') {
      if (line.timed_out) ctx.stderr.write(`box: the command timed out after ${body.timeout_s} s and was killed\n`);
      if (line.truncated) ctx.stderr.write('box: output passed the per-stream cap and was truncated\n');
      return exitStatus(line.exit_code);
    }
  }
  throw new ApiError('internal', 'the exec stream ended without an exit status');
}

/** Lets pending output reach the pipe, then exits: the terminal's stdin would otherwise keep the process alive. */
function exitAfterFlush(ctx: Context, code: number): Promise<number> {
  return new Promise(() => ctx.stdout.write('', () => ctx.stderr.write('', () => process.exit(code))));
}

/** Runs a terminal session on this process's terminal and exits with the remote command's code. */
async function terminalSession(ctx: Context, url: string): Promise<number> {
  const result = await runTerminal({
    url,
    token: ctx.connection.token,
    tty: true,
    stdin: process.stdin,
    stdout: ctx.stdout,
    stderr: ctx.stderr,
  });
  return exitAfterFlush(ctx, exitStatus(result.code));
}

interface ExecFlags {
  tty?: boolean;
  interactive?: boolean;
  env?: string[];
  cwd?: string;
  timeout?: number;
  background?: boolean;
}

async function runExec(ctx: Context, name: string, command: string[], opts: ExecFlags): Promise<number> {
  if (command.length === 0)
    throw new UsageError('missing the command to run\nusage: box exec NAME [options] -- CMD [ARGS...]');
  if (opts.tty && opts.background)
    throw new UsageError('-t and --background do not go together: a job has no terminal');
  if (opts.tty) {
    if (opts.env || opts.cwd !== undefined || opts.timeout !== undefined)
      throw new UsageError(
        '--env, --cwd and --timeout are not available with -t; wrap the command instead, e.g. -- env K=V sh',
      );
    const url = ctx.client.socketUrl(ctx.project, name, 'exec', [
      ...command.map((c): [string, string] => ['command', c]),
      ['tty', 1],
      ...terminalSize(ctx.stdout),
    ]);
    return terminalSession(ctx, url);
  }
  const body: ExecRequest = { command };
  const env = stringMap(opts.env, 'env');
  if (env) body.env = env;
  if (opts.cwd !== undefined) body.cwd = opts.cwd;
  if (opts.timeout !== undefined) body.timeout_s = opts.timeout;
  if (opts.background) {
    if (opts.interactive || opts.timeout !== undefined)
      throw new UsageError('-i and --timeout are not available with --background; stop a job with "box jobs kill"');
    const job = await ctx.client.startJob(ctx.project, name, body);
    print(ctx, job, () => `${job.id}\n`);
    return 0;
  }
  if (opts.interactive) body.stdin = await readAll(process.stdin);
  return streamExec(ctx, name, body);
}

function registerExec(program: Command, cli: Cli): void {
  const cmd = program
    .command('exec')
    .description("run a command in a box; exits with the command's exit code, 125 when Boxdesk failed")
    .usage('[options] NAME [--] CMD [ARGS...]')
    .argument('<NAME>', 'the box')
    .argument('[CMD...]', 'the command and its arguments, passed on untouched')
    .option('-t, --tty', 'allocate a terminal (interactive, over a WebSocket)')
    .option('-i, --interactive', 'send this process’s stdin to the command')
    .option('-e, --env <K=V>', 'extra environment variable (repeatable)', collect)
    .option('--cwd <DIR>', 'working directory (absolute)')
    .option('--timeout <S>', 'kill the command after S seconds', wholeNumber('--timeout', 1))
    .option('--background', 'run it as a job and print its id at once ("box jobs" reads, kills and removes it)')
    .passThroughOptions();
  cli.action<ExecFlags>(cmd, (ctx, [name, ...command], opts) => runExec(ctx, name!, command, opts), {
    passThroughAfter: 1,
    failureStatus: BOXDESK_FAILED,
  });
}

function registerConsole(program: Command, cli: Cli): void {
  const cmd = program
    .command('console <NAME>')
    .description("open an interactive login shell; exits with the shell's exit code")
    .option('--session <ID>', 'reattach to a detached console session');
  cli.action<{ session?: string }>(cmd, (ctx, [name], opts) =>
    terminalSession(
      ctx,
      ctx.client.socketUrl(ctx.project, name!, 'console', [...terminalSize(ctx.stdout), ['session', opts.session]]),
    ),
  );
}

/** `box exec` and `box console`: commands in a box, streamed or on a terminal. */
export const exec = commandModule(
  'exec',
  [registerExec, registerConsole],
  '"exec" and "console" exit with the remote command\'s code.',
);
