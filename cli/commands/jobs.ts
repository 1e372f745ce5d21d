import type { Command } from 'commander';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Job } from '../../shared/schemas/jobs';
import type { Cli } from '../actions';
import type { Context } from '../context';
import { wholeNumber } from '../options';
import { age, details, formatBytes } from '../output';
import { print, printList } from '../print';
import { commandModule } from '../program';

const jobColumns = [
  { header: 'ID', get: (j: Job) => j.id },
  { header: 'STATUS', get: (j: Job) => j.status },
  { header: 'EXIT', get: (j: Job) => (j.exit_code === null ? '' : String(j.exit_code)) },
  { header: 'OUT', get: (j: Job) => formatBytes(j.stdout_bytes) },
  { header: 'ERR', get: (j: Job) => formatBytes(j.stderr_bytes) },
  { header: 'AGE', get: (j: Job) => age(j.started_at) },
  { header: 'COMMAND', get: (j: Job) => j.command.join(' ') },
];

function printJob(ctx: Context, j: Job): void {
  print(ctx, j, () =>
    details([
      ['id', j.id],
      ['command', j.command.join(' ')],
      ['status', j.status],
      ['exit code', j.exit_code === null ? null : String(j.exit_code)],
      ['started', j.started_at],
      ['ended', j.ended_at],
      ['stdout', formatBytes(j.stdout_bytes)],
      ['stderr', formatBytes(j.stderr_bytes)],
    ]),
  );
}

interface LogsFlags {
  follow?: boolean;
  stderr?: boolean;
  from?: number;
}

async function jobLogs(ctx: Context, box: string, id: string, opts: LogsFlags): Promise<void> {
  const res = await ctx.client.jobOutput(ctx.project, box, id, {
    stream: opts.stderr ? 'stderr' : 'stdout',
    from: opts.from,
    follow: opts.follow === true,
  });
  const offset = Number(res.headers.get('x-boxdesk-output-offset') ?? 0);
  if (offset > (opts.from ?? 0)) {
    ctx.stderr.write(`box: the first ${formatBytes(offset)} are no longer kept; output from byte ${offset}\n`);
  }
  await pipeline(Readable.fromWeb(res.body as never), ctx.stdout, { end: false }).catch(
    (err: NodeJS.ErrnoException) => {
      // A reader that stopped early (`box jobs logs web ID | head`) ends the command quietly.
      if (err.code !== 'EPIPE' && !(err.code === 'ERR_STREAM_PREMATURE_CLOSE' && ctx.stdout.destroyed)) throw err;
    },
  );
}

function registerJobs(program: Command, cli: Cli): void {
  const group = program
    .command('jobs')
    .description('background commands in a box ("box exec --background" starts one): ls, get, logs, kill, rm');
  cli.action(group.command('ls <BOX>').description("a box's jobs, oldest first"), async (ctx, [box]) => {
    printList(ctx, await ctx.client.listJobs(ctx.project, box!), jobColumns, `box ${box} has no jobs`);
  });
  cli.action(group.command('get <BOX> <ID>').description('show one job'), async (ctx, [box, id]) => {
    printJob(ctx, await ctx.client.getJob(ctx.project, box!, id!));
  });
  cli.action<LogsFlags>(
    group
      .command('logs <BOX> <ID>')
      .description("print a job's kept output (about the last MiB of each stream)")
      .option('-f, --follow', 'keep streaming new output until the job ends')
      .option('--stderr', 'its stderr instead of its stdout')
      .option('--from <BYTE>', 'from this byte offset', wholeNumber('--from')),
    (ctx, [box, id], opts) => jobLogs(ctx, box!, id!, opts),
  );
  cli.action(
    group.command('kill <BOX> <ID>').description('kill a job and every process it started'),
    async (ctx, [box, id]) => {
      const job = await ctx.client.killJob(ctx.project, box!, id!);
      print(ctx, job, () => `job ${job.id} ${job.status}\n`);
    },
  );
  cli.removal(
    group.command('rm <BOX> <ID...>').description('delete jobs and their output (a running one is killed first)'),
    (ctx, id, [box]) => ctx.client.deleteJob(ctx.project, box!, id),
    (id) => `job ${id} deleted`,
  );
}

/** `box jobs …`: a box's background commands. */
export const jobs = commandModule('jobs', [registerJobs]);
