import { ApiError } from '../../shared/errors';
import type { ExecRequest, ExecStreamLine } from '../../shared/schemas/exec';
import { UsageError, expectPositionals, intOption, stringMap } from '../args';
import type { Command, Context } from '../context';
import { runTerminal, terminalSize } from '../terminal';

/** A process exit status from a remote code: 0-255 as is, anything else 1. */
export function exitStatus(code: number | null): number {
  return code !== null && Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Splits an x-ndjson body into parsed lines as they arrive. */
async function* ndjson(body: AsyncIterable<Uint8Array>): AsyncGenerator<ExecStreamLine | { type: 'error'; code: string; message: string }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line) as ExecStreamLine;
    }
  }
  if (buffered.trim()) yield JSON.parse(buffered) as ExecStreamLine;
}

async function streamExec(ctx: Context, name: string, body: ExecRequest): Promise<number> {
  const res = await ctx.client.execStream(ctx.project, name, body);
  for await (const line of ndjson(res.body as AsyncIterable<Uint8Array>)) {
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

export const execCommands: Command[] = [
  {
    name: 'exec',
    usage: 'box exec NAME [-t] [-i] [--env K=V]... [--cwd DIR] [--timeout S] [--] CMD [ARGS...]',
    summary: "run a command in a box; exits with the command's exit code",
    maxPositionals: 1,
    options: {
      tty: { kind: 'boolean', short: 't', help: 'allocate a terminal (interactive, over a WebSocket)' },
      interactive: { kind: 'boolean', short: 'i', help: 'send this process’s stdin to the command' },
      env: { kind: 'list', value: 'K=V', help: 'extra environment variable (repeatable)' },
      cwd: { kind: 'string', value: 'DIR', help: 'working directory (absolute)' },
      timeout: { kind: 'string', value: 'S', help: 'kill the command after S seconds' },
    },
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box exec NAME [options] -- CMD [ARGS...]');
      if (args.rest.length === 0) throw new UsageError('missing the command to run\nusage: box exec NAME [options] -- CMD [ARGS...]');
      if (args.booleans.has('tty')) {
        if (args.lists.env || args.strings.cwd || args.strings.timeout) throw new UsageError('--env, --cwd and --timeout are not available with -t; wrap the command instead, e.g. -- env K=V sh');
        const url = ctx.client.socketUrl(ctx.project, name!, 'exec', [...args.rest.map((c): [string, string] => ['command', c]), ['tty', 1], ...terminalSize(ctx.stdout)]);
        const result = await runTerminal({ url, token: ctx.connection.token, tty: true, stdin: process.stdin, stdout: ctx.stdout, stderr: ctx.stderr });
        return exitAfterFlush(ctx, exitStatus(result.code));
      }
      const body: ExecRequest = { command: args.rest };
      const env = stringMap(args.lists.env, 'env');
      if (env) body.env = env;
      if (args.strings.cwd !== undefined) body.cwd = args.strings.cwd;
      const timeout = intOption(args, 'timeout', 1);
      if (timeout !== undefined) body.timeout_s = timeout;
      if (args.booleans.has('interactive')) body.stdin = await readAll(process.stdin);
      return streamExec(ctx, name!, body);
    },
  },
  {
    name: 'console',
    usage: 'box console NAME [--session ID]',
    summary: "open an interactive login shell; exits with the shell's exit code",
    options: { session: { kind: 'string', value: 'ID', help: 'reattach to a detached console session' } },
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box console NAME [--session ID]');
      const url = ctx.client.socketUrl(ctx.project, name!, 'console', [...terminalSize(ctx.stdout), ['session', args.strings.session]]);
      const result = await runTerminal({ url, token: ctx.connection.token, tty: true, stdin: process.stdin, stdout: ctx.stdout, stderr: ctx.stderr });
      return exitAfterFlush(ctx, exitStatus(result.code));
    },
  },
];
