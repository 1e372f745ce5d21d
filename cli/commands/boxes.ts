import type { Command } from 'commander';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Box, BoxCreate, BoxList, BoxStatus, BoxUpdate } from '../../shared/schemas/box';
import type { Cli } from '../actions';
import { askOrRefuse } from '../confirm';
import type { Context } from '../context';
import {
  UsageError,
  applyEdits,
  checkWaitFlags,
  collect,
  dataMount,
  keyValues,
  stringMap,
  waitOptions,
  wholeNumber,
  orNull,
  wholeNumberOrNone,
  type WaitFlags,
} from '../options';
import { age, details, map } from '../output';
import { print, printList } from '../print';
import { commandModule } from '../program';
import { describeNetwork, networkBody, networkOptions, secretsBody, type NetworkFlags } from './box-network';
import { withSpinner } from '../progress';
import { waitForStatus } from '../wait';
import {
  lifecycleBody,
  lifecycleOptions,
  lifecycleText,
  nextChangeText,
  type LifecycleFlags,
} from '../lifecycle-options';

const boxColumns = [
  { header: 'NAME', get: (b: Box) => b.name },
  { header: 'STATUS', get: (b: Box) => b.status },
  { header: 'BASE', get: (b: Box) => b.base },
  { header: 'CPUS', get: (b: Box) => b.config.cpus },
  { header: 'RAM_MB', get: (b: Box) => b.config.ram_mb },
  { header: 'TAGS', get: (b: Box) => map(b.tags) },
  { header: 'AGE', get: (b: Box) => age(b.created_at) },
  { header: 'NEXT', get: (b: Box) => nextChangeText(b) },
];

export function boxDetails(b: Box): string {
  return details([
    ['name', b.name],
    ['id', b.id],
    ['project', b.project],
    ['status', b.status_reason ? `${b.status} (${b.status_reason})` : b.status],
    ['base', b.base],
    ['cpus', b.config.cpus],
    ['ram_mb', b.config.ram_mb],
    ['storage_gb', `${b.config.storage_gb}${b.storage_enforced ? '' : ' (not enforced)'}`],
    ['environment', map(b.environment)],
    ['network', b.network ? describeNetwork(b.network) : null],
    ['secrets', b.secrets?.length ? b.secrets.join(', ') : null],
    ['volumes', (b.data_mounts ?? []).map((m) => `${m.name}:${m.path}${m.read_only ? ':ro' : ''}`).join(', ')],
    ['tags', map(b.tags)],
    ['port', b.port],
    ['grace_seconds', b.termination_grace_period_seconds],
    ['lifecycle', lifecycleText(b)],
    ['next', nextChangeText(b)],
    ['url', b.url],
    ['created', b.created_at],
    ['updated', b.updated_at],
  ]);
}

function printBox(ctx: Context, box: Box, line?: string): void {
  print(ctx, box, () => line ?? boxDetails(box));
}

/** `k:v` as the API wants it; `k=v` accepted too. */
export function tagFilter(items: readonly string[] | undefined): string[] | undefined {
  return items?.map((t) => {
    if (t.includes(':')) return t;
    const eq = t.indexOf('=');
    if (eq > 0) return `${t.slice(0, eq)}:${t.slice(eq + 1)}`;
    throw new UsageError(`--tag expects KEY:VALUE, got "${t}"`);
  });
}

/** `--wait` and `--timeout S` for a state change. */
function boxWaitOptions(cmd: Command, until: BoxStatus): Command {
  return waitOptions(cmd, `wait until the box is ${until}; fail with its reason if it lands in error`, 120);
}

/** Runs a state change, then with --wait follows the box to `target`. */
async function change(
  ctx: Context,
  flags: WaitFlags,
  label: string,
  target: BoxStatus,
  request: () => Promise<Box>,
): Promise<Box> {
  checkWaitFlags(flags);
  const box = await withSpinner(label, request, ctx.stderr);
  if (!flags.wait) return box;
  return withSpinner(
    `${label}: waiting for ${target}`,
    () => waitForStatus(ctx, box, target, { timeoutS: flags.timeout ?? 120 }),
    ctx.stderr,
  );
}

interface CreateFlags extends WaitFlags, LifecycleFlags, NetworkFlags {
  base?: string;
  fork?: string;
  cpus?: number;
  ramMb?: number;
  storageGb?: number;
  region?: string;
  env?: string[];
  tag?: string[];
  volume?: string[];
}

function createBody(name: string, opts: CreateFlags, fork?: string): BoxCreate {
  const config = { cpus: opts.cpus, ram_mb: opts.ramMb, storage_gb: opts.storageGb, region: opts.region };
  const body: BoxCreate = { name };
  if (opts.base !== undefined) body.base = opts.base;
  if (fork ?? opts.fork) body.fork = fork ?? opts.fork;
  if (Object.values(config).some((v) => v !== undefined))
    body.config = JSON.parse(JSON.stringify(config)) as BoxCreate['config'];
  const environment = stringMap(opts.env, 'env');
  if (environment) body.environment = environment;
  const tags = stringMap(opts.tag, 'tag');
  if (tags) body.tags = tags;
  if (opts.volume?.length) body.data_mounts = opts.volume.map(dataMount);
  return { ...body, ...sharedSettings(opts) };
}

/** The lifecycle, network and secrets that create and update both take, where the flags give them. */
function sharedSettings(opts: LifecycleFlags & NetworkFlags): Pick<BoxUpdate, 'lifecycle' | 'network' | 'secrets'> {
  const [lifecycle, network, secrets] = [lifecycleBody(opts), networkBody(opts), secretsBody(opts)];
  return { ...(lifecycle && { lifecycle }), ...(network && { network }), ...(secrets && { secrets }) };
}

async function create(ctx: Context, body: BoxCreate, opts: CreateFlags): Promise<void> {
  const label = body.fork ? `forking ${body.fork} into ${body.name}` : `creating box ${body.name}`;
  printBox(ctx, await change(ctx, opts, label, 'running', () => ctx.client.createBox(ctx.project, body)));
}

/** The options create and fork share. */
function configOptions(cmd: Command): Command {
  return boxWaitOptions(
    lifecycleOptions(
      networkOptions(
        cmd
          .option('--cpus <N>', 'CPU cores', wholeNumber('--cpus', 1))
          .option('--ram-mb <N>', 'memory limit in MiB', wholeNumber('--ram-mb', 1))
          .option('--storage-gb <N>', 'root filesystem size limit in GiB', wholeNumber('--storage-gb', 1))
          .option(
            '--region <NAME>',
            "the region (engine) to make it in (box regions lists them; a fork stays in its source's)",
          )
          .option('-e, --env <K=V>', 'environment variable (repeatable)', collect)
          .option('--tag <K=V>', 'tag (repeatable)', collect)
          .option('-v, --volume <VOL:/PATH[:ro]>', 'mount a data volume of the project (repeatable)', collect),
      ),
    ),
    'running',
  );
}

/** `box create` and `box fork`. */
function registerCreate(program: Command, cli: Cli): void {
  const createCmd = program
    .command('create')
    .description('create and start a box')
    .argument('<NAME>', 'the box name (a DNS label)')
    .option('--base <BASE>', 'base template (default: the default base)')
    .option('--fork <SRC>', 'start from a copy-on-write copy of box SRC, or of the snapshot with id SRC');
  cli.action<CreateFlags>(configOptions(createCmd), (ctx, [name], opts) => create(ctx, createBody(name!, opts), opts));

  const forkCmd = program
    .command('fork <SRC> <NEW>')
    .description('create box NEW from a copy-on-write copy of box SRC (or of snapshot SRC, by id)');

  cli.action<CreateFlags>(configOptions(forkCmd), (ctx, [src, name], opts) =>
    create(ctx, createBody(name!, opts, src), opts),
  );
}

interface ListFlags {
  status?: string;
  tag?: string[];
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** `box ls` and `box get`. */
function registerList(program: Command, cli: Cli): void {
  const ls = program
    .command('ls')
    .description('list boxes in the project')
    .option('--status <S>', 'only boxes in this status')
    .option('--tag <K:V>', 'only boxes with this tag (repeatable: all must match)', collect)
    .option('--limit <N>', 'page size (default 100)', wholeNumber('--limit', 1))
    .option('--cursor <C>', 'continue from a previous page')
    .option('--all', 'follow next_cursor and list every page');
  cli.action<ListFlags>(ls, async (ctx, _args, opts) => {
    const filter = { status: opts.status, tag: tagFilter(opts.tag), limit: opts.limit, cursor: opts.cursor };
    let list: BoxList = await ctx.client.listBoxes(ctx.project, filter);
    if (opts.all) {
      const items = [...list.items];
      while (list.next_cursor) {
        list = await ctx.client.listBoxes(ctx.project, { ...filter, cursor: list.next_cursor });
        items.push(...list.items);
      }
      list = { items, next_cursor: null };
    }
    printList(ctx, list, boxColumns, `no boxes in project ${ctx.project}`);
    if (ctx.format === 'table' && list.next_cursor)
      ctx.stderr.write(`more boxes: add --all, or --cursor ${list.next_cursor}\n`);
  });

  cli.action(program.command('get <NAME>').description('show one box'), async (ctx, [name]) => {
    printBox(ctx, await ctx.client.getBox(ctx.project, name!));
  });
}

interface UpdateFlags extends LifecycleFlags, NetworkFlags {
  cpus?: number;
  ramMb?: number;
  env?: string[];
  tag?: string[];
  port?: number | 'none';
  grace?: number | 'none';
}

async function update(ctx: Context, name: string, opts: UpdateFlags): Promise<void> {
  const body: BoxUpdate = {};
  if (opts.cpus !== undefined || opts.ramMb !== undefined)
    body.config = JSON.parse(JSON.stringify({ cpus: opts.cpus, ram_mb: opts.ramMb })) as BoxUpdate['config'];
  if (opts.port !== undefined) body.port = orNull(opts.port);
  if (opts.grace !== undefined) body.termination_grace_period_seconds = orNull(opts.grace);
  Object.assign(body, sharedSettings(opts));
  const envEdits = keyValues(opts.env, 'env', true);
  const tagEdits = keyValues(opts.tag, 'tag', true);
  if (Object.keys(body).length === 0 && !envEdits && !tagEdits)
    throw new UsageError(
      'nothing to update: give at least one of --cpus, --ram-mb, --env, --tag, --port, --grace, --auto-pause, --auto-stop, --auto-delete, --ttl, --egress, --allow, --[no-]network-host, --secret, --no-secrets',
    );
  // The API replaces whole maps; read the box so one --env edits rather than wipes the rest.
  if (envEdits || tagEdits) {
    const current = await ctx.client.getBox(ctx.project, name);
    if (envEdits) body.environment = applyEdits(current.environment, envEdits);
    if (tagEdits) body.tags = applyEdits(current.tags, tagEdits);
  }
  printBox(ctx, await ctx.client.updateBox(ctx.project, name, body));
}

function registerUpdate(program: Command, cli: Cli): void {
  const cmd = program
    .command('update <NAME>')
    .description('change a box; --env and --tag edit the current maps (K- removes K)')
    .option('--cpus <N>', 'CPU cores', wholeNumber('--cpus', 1))
    .option('--ram-mb <N>', 'memory limit in MiB', wholeNumber('--ram-mb', 1))
    .option('-e, --env <K=V>', 'set an environment variable for later execs; K- removes it (repeatable)', collect)
    .option('--tag <K=V>', 'set a tag; K- removes it (repeatable)', collect)
    .option('--port <N|none>', 'the port the box serves on', wholeNumberOrNone('--port'))
    .option('--grace <S|none>', 'termination grace period in seconds', wholeNumberOrNone('--grace'));
  cli.action<UpdateFlags>(lifecycleOptions(networkOptions(cmd)), (ctx, [name], opts) => update(ctx, name!, opts));
}

/** `box stop`, `box resume`, `box pause` and `box rm`. */
function registerLifecycle(program: Command, cli: Cli): void {
  const transitions = [
    ['stop', 'stop a box (SIGTERM, then SIGKILL after its grace period)', 'stopping', 'stopped'],
    ['resume', 'start a stopped box again, or wake a paused one', 'resuming', 'running'],
    [
      'pause',
      'freeze a running box in place (no CPU, memory kept); any use of it, or resume, wakes it',
      'pausing',
      'paused',
    ],
  ] as const;
  for (const [verb, description, doing, target] of transitions) {
    const cmd = boxWaitOptions(program.command(verb).description(description).argument('<NAME>'), target);
    cli.action<WaitFlags>(cmd, async (ctx, [name], opts) => {
      const calls = { stop: 'stopBox', resume: 'resumeBox', pause: 'pauseBox' } as const;
      const request = () => ctx.client[calls[verb]](ctx.project, name!);
      const box = await change(ctx, opts, `${doing} box ${name}`, target, request);
      printBox(ctx, box, `${box.name} ${box.status}\n`);
    });
  }

  cli.removal<{ force?: boolean }>(
    program
      .command('rm <NAME...>')
      .description('delete boxes; one that is not stopped asks first on a terminal, and needs -f without one')
      .option('-f, --force', 'delete boxes that are not stopped without asking'),
    async (ctx, name, _leading, opts) => {
      if (!opts.force) await refuseUnlessStopped(ctx, name);
      return withSpinner(`deleting box ${name}`, () => ctx.client.deleteBox(ctx.project, name), ctx.stderr);
    },
    (name) => `${name} deleted`,
  );
}

/** As `docker rm`: a box that is not stopped is deleted only when the user says so (on a terminal) or forces it. */
async function refuseUnlessStopped(ctx: Context, name: string): Promise<void> {
  const box = await ctx.client.getBox(ctx.project, name);
  if (box.status === 'stopped' || box.status === 'error') return;
  await askOrRefuse(ctx, `box ${name} is ${box.status}; delete it anyway?`, {
    declined: `${name} not deleted`,
    refusal: `box ${name} is ${box.status}: stop it first (box stop ${name}), or pass -f/--force to delete it as it is`,
  });
}

function registerLogs(program: Command, cli: Cli): void {
  const logs = program
    .command('logs <NAME>')
    .description("print the box's main process output")
    .option('--tail <N>', 'only the last N lines', wholeNumber('--tail'))
    .option('-f, --follow', 'keep streaming new output');
  cli.action<{ tail?: number; follow?: boolean }>(logs, async (ctx, [name], opts) => {
    const res = await ctx.client.logs(ctx.project, name!, { tail: opts.tail, follow: opts.follow === true });
    // Piped with backpressure: a slow reader slows the download instead of the output piling up in memory.
    await pipeline(Readable.fromWeb(res.body as never), ctx.stdout, { end: false }).catch(
      (err: NodeJS.ErrnoException) => {
        // A reader that stopped early (`box logs web | head`) ends the command quietly.
        if (err.code !== 'EPIPE' && !(err.code === 'ERR_STREAM_PREMATURE_CLOSE' && ctx.stdout.destroyed)) throw err;
      },
    );
  });
}

/** `box create|fork|ls|get|update|stop|resume|pause|rm|logs`: boxes, at the top level. */
export const boxes = commandModule('boxes', [
  registerCreate,
  registerList,
  registerUpdate,
  registerLifecycle,
  registerLogs,
]);
