import { Option, type Command } from 'commander';
import type {
  DeployRequest,
  Deployment,
  HealthCheck,
  Service,
  ServiceCreate,
  ServiceUpdate,
} from '../../shared/schemas/services';
import type { Context } from '../context';
import { StepReporter, startAndFollow } from '../follow-deployment';
import { UsageError, collect, keyValues, stringMap, wholeNumber } from '../options';
import { age, details, map, render, table } from '../output';
import type { Area } from '../program';
import { withSpinner } from '../progress';
import { applyEdits, dataMount } from './boxes';

type Cli = Parameters<Area>[1];

/** A table cell of at most `n` characters (the whole text is in -o json|yaml and box service deployments -o json). */
function clip(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

const live = (s: Service) => (s.active_deployment ? `${s.active_deployment.color} (${s.active_deployment.id})` : null);
const command = (c: string[] | null) =>
  c ? c.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ') : '(the base’s own)';

const serviceColumns = [
  { header: 'NAME', get: (s: Service) => s.name },
  { header: 'LIVE', get: live },
  { header: 'URL', get: (s: Service) => s.url },
  { header: 'BASE', get: (s: Service) => s.base },
  { header: 'PORT', get: (s: Service) => s.port },
  { header: 'AGE', get: (s: Service) => age(s.created_at) },
];

const deploymentColumns = [
  { header: 'ID', get: (d: Deployment) => d.id },
  { header: 'KIND', get: (d: Deployment) => d.kind },
  { header: 'STATUS', get: (d: Deployment) => d.status },
  { header: 'COLOR', get: (d: Deployment) => d.color },
  { header: 'BASE', get: (d: Deployment) => d.base },
  { header: 'ENV', get: (d: Deployment) => map(d.environment) },
  { header: 'AGE', get: (d: Deployment) => age(d.created_at) },
  { header: 'REASON', get: (d: Deployment) => (d.reason ? clip(d.reason.split('\n')[0]!, 60) : '') },
];

function serviceDetails(s: Service): string {
  const h = s.health_check;
  return details([
    ['name', s.name],
    ['id', s.id],
    ['project', s.project],
    ['url', s.url],
    ['auth', s.url_settings.auth],
    ['live', live(s)],
    ['base', s.base],
    ['command', command(s.command)],
    ['port', s.port],
    ['environment', map(s.environment)],
    ['volumes', s.data_mounts.map((m) => `${m.name}:${m.path}${m.read_only ? ':ro' : ''}`).join(', ')],
    [
      'health_check',
      `GET ${h.path} every ${h.interval_s} s (timeout ${h.timeout_s} s), healthy after ${h.healthy_threshold} in a row, within ${h.start_timeout_s} s`,
    ],
    ['created', s.created_at],
    ['updated', s.updated_at],
  ]);
}

/** A number of seconds, decimals allowed (health checks probe every 0.2 s in tests). */
function seconds(flag: string, min: number): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min)
      throw new UsageError(`${flag} must be a number of seconds of at least ${min}, got "${raw}"`);
    return n;
  };
}

interface SpecFlags {
  base?: string;
  command?: string;
  env?: string[];
  volume?: string[];
  port?: number;
  healthPath?: string;
  healthInterval?: number;
  healthTimeout?: number;
  healthyThreshold?: number;
  startTimeout?: number;
  auth?: 'public' | 'token';
}

interface WaitFlags {
  wait?: boolean;
  timeout?: number;
}

/** `--command 'STRING'` runs through sh -c; `-- CMD ARGS` is the exact argv. */
function commandOf(opts: { command?: string }, argv: string[]): string[] | undefined {
  if (opts.command !== undefined && argv.length)
    throw new UsageError('give the command either as --command STRING or after --, not both');
  if (opts.command !== undefined) {
    if (opts.command.trim() === '') throw new UsageError('--command needs a command');
    return ['sh', '-c', opts.command];
  }
  return argv.length ? argv : undefined;
}

function healthOf(opts: SpecFlags): Partial<HealthCheck> | undefined {
  const h: Partial<HealthCheck> = JSON.parse(
    JSON.stringify({
      path: opts.healthPath,
      interval_s: opts.healthInterval,
      timeout_s: opts.healthTimeout,
      healthy_threshold: opts.healthyThreshold,
      start_timeout_s: opts.startTimeout,
    }),
  ) as Partial<HealthCheck>;
  return Object.keys(h).length ? h : undefined;
}

/** The body of POST /services from the command line. */
export function createBody(name: string, opts: SpecFlags, argv: string[]): ServiceCreate {
  if (opts.port === undefined)
    throw new UsageError('--port is needed: the port the command serves HTTP on inside the box');
  const body: ServiceCreate = { name, port: opts.port };
  if (opts.base !== undefined) body.base = opts.base;
  const cmd = commandOf(opts, argv);
  if (cmd) body.command = cmd;
  const environment = stringMap(opts.env, 'env');
  if (environment) body.environment = environment;
  if (opts.volume?.length) body.data_mounts = opts.volume.map(dataMount);
  const health = healthOf(opts);
  if (health) body.health_check = health;
  if (opts.auth) body.auth = opts.auth;
  return body;
}

/** The options create and update share: the spec of the next deployment. */
function specOptions(cmd: Command, verb: string): Command {
  return cmd
    .option('--port <N>', 'the port the command serves HTTP on inside the box', wholeNumber('--port', 1))
    .option('--base <BASE>', 'base template (default: the default base)')
    .option(
      '--command <STRING>',
      `the box's main process, run with sh -c (or give CMD ARGS after --); it must keep serving --port`,
    )
    .option('-e, --env <K=V>', `environment variable (repeatable${verb === 'update' ? '; K- removes K' : ''})`, collect)
    .option(
      '-v, --volume <VOL:/PATH[:ro]>',
      `mount a data volume of the project (repeatable${verb === 'update' ? '; replaces the list' : ''})`,
      collect,
    )
    .option('--health-path <PATH>', 'the path probed with HTTP GET (default /)')
    .option(
      '--health-interval <S>',
      'seconds between probes (default 1; decimals allowed)',
      seconds('--health-interval', 0.1),
    )
    .option('--health-timeout <S>', 'seconds a probe may take (default 2)', seconds('--health-timeout', 0.1))
    .option(
      '--healthy-threshold <N>',
      'passing probes in a row that make the new color healthy (default 2)',
      wholeNumber('--healthy-threshold', 1),
    )
    .option(
      '--start-timeout <S>',
      'seconds the new color has to become healthy (default 60)',
      seconds('--start-timeout', 1),
    )
    .addOption(
      new Option(
        '--auth <MODE>',
        'public: anyone on this machine; token: a token that can read the project (default)',
      ).choices(['public', 'token']),
    );
}

function waitOptions(cmd: Command): Command {
  return cmd
    .option(
      '--wait',
      'show the steps as they happen and wait until the deployment is live (exit 0) or failed (exit 1, with the reason)',
    )
    .option('--timeout <S>', 'with --wait: give up after S seconds (default 300)', wholeNumber('--timeout', 1));
}

/**
 * Starts a deployment; with --wait follows its steps to the end and prints
 * where it landed. The exit status is 1 when it failed.
 */
async function deployment(
  ctx: Context,
  service: string,
  flags: WaitFlags,
  what: string,
  start: () => Promise<Deployment>,
): Promise<number> {
  if (flags.timeout !== undefined && !flags.wait) throw new UsageError('--timeout applies only with --wait');
  if (!flags.wait) {
    const d = await withSpinner(`${what} ${service}`, start, ctx.stderr);
    ctx.stdout.write(
      render(
        ctx.format,
        d,
        () =>
          `${d.kind === 'rollback' ? 'rollback' : 'deployment'} ${d.id} of ${service} started (${d.status}; its color is settled when it starts)\n`,
      ),
    );
    if (ctx.format === 'table') ctx.stderr.write(`follow it: box service deployments ${service} (or add --wait)\n`);
    return 0;
  }
  const reporter = new StepReporter(`${what} ${service}`, ctx.stderr);
  let d: Deployment;
  try {
    d = await startAndFollow(ctx, service, start, {
      timeoutS: flags.timeout ?? 300,
      onChange: (x) => reporter.update(x),
    });
  } catch (err) {
    reporter.end(false);
    throw err;
  }
  const ok = d.status !== 'failed';
  reporter.end(ok);
  if (!ok) {
    ctx.stdout.write(render(ctx.format, d, () => ''));
    // The whole reason was on the step line above; this says where things stand and what to do.
    const first = (d.reason ?? 'the core gave no reason').split('\n')[0]!.slice(0, 200);
    ctx.stderr.write(
      `deployment ${d.id} of ${service} failed: ${first}\n` +
        `the live color (if any) still serves; the failed spec is now the service's: fix it (box service update ${service} …) and deploy again, or go back to the last live one (box rollback ${service})\n`,
    );
    return 1;
  }
  const s = await ctx.client.services.get(ctx.project, service);
  const note = d.status === 'live' ? '' : ` (it has since been ${d.status.replace('_', ' ')})`;
  ctx.stdout.write(render(ctx.format, d, () => `${service} is live on ${d.color} (${d.id})${note}: ${s.url}\n`));
  return 0;
}

function registerServiceGroup(group: Command, cli: Cli): void {
  const create = waitOptions(
    specOptions(
      group
        .command('create')
        .description('create a service and start its first deployment')
        .argument('<NAME>', 'the service name (a DNS label of at most 57 characters)')
        .argument('[CMD...]', 'after --: the command and its arguments'),
      'create',
    ),
  );
  cli.action<SpecFlags & WaitFlags>(create, async (ctx, [name, ...argv], opts) => {
    const body = createBody(name!, opts, argv);
    if (!opts.wait) {
      if (opts.timeout !== undefined) throw new UsageError('--timeout applies only with --wait');
      const s = await withSpinner(
        `creating service ${name}`,
        () => ctx.client.services.create(ctx.project, body),
        ctx.stderr,
      );
      ctx.stdout.write(
        render(
          ctx.format,
          s,
          () => `service ${s.name} created; its first deployment is under way (add --wait to follow it)\n${s.url}\n`,
        ),
      );
      return 0;
    }
    // The first deployment is the newest one just after the create answers.
    const first = async () => {
      await ctx.client.services.create(ctx.project, body);
      const list = await ctx.client.services.deployments(ctx.project, name!);
      if (!list.items[0]) throw new Error(`service ${name} was created without a deployment`);
      return list.items[0];
    };
    return deployment(ctx, name!, opts, 'creating', first);
  });

  cli.action(group.command('ls').description('list the services of the project'), async (ctx) => {
    const list = await ctx.client.services.list(ctx.project);
    ctx.stdout.write(
      render(ctx.format, list, () =>
        list.items.length ? table(list.items, serviceColumns) : `no services in project ${ctx.project}\n`,
      ),
    );
  });

  cli.action(
    group.command('get').description('show one service: its URL, live color, spec and health check').argument('<NAME>'),
    async (ctx, [name]) => {
      const s = await ctx.client.services.get(ctx.project, name!);
      ctx.stdout.write(render(ctx.format, s, () => serviceDetails(s)));
    },
  );

  const update = specOptions(
    group
      .command('update')
      .description('change the spec of the next deployment (--auth applies at once)')
      .argument('<NAME>')
      .argument('[CMD...]', 'after --: the command and its arguments'),
    'update',
  )
    .option('--base-command', "run the base's own command (forget --command)")
    .option('--no-volumes', 'mount no data volumes from the next deploy on');
  cli.action<SpecFlags & { baseCommand?: boolean; volumes?: boolean }>(update, async (ctx, [name, ...argv], opts) => {
    const body: ServiceUpdate = {};
    if (opts.port !== undefined) body.port = opts.port;
    if (opts.base !== undefined) body.base = opts.base;
    const cmd = commandOf(opts, argv);
    if (cmd && opts.baseCommand) throw new UsageError('give either a command or --base-command, not both');
    if (cmd) body.command = cmd;
    if (opts.baseCommand) body.command = null;
    if (opts.volume?.length && opts.volumes === false) throw new UsageError('give either -v or --no-volumes, not both');
    if (opts.volume?.length) body.data_mounts = opts.volume.map(dataMount);
    if (opts.volumes === false) body.data_mounts = [];
    const health = healthOf(opts);
    if (health) body.health_check = health;
    if (opts.auth) body.auth = opts.auth;
    const envEdits = keyValues(opts.env, 'env', true);
    // The API replaces the whole map; read it so one --env edits rather than wipes the rest.
    if (envEdits)
      body.environment = applyEdits((await ctx.client.services.get(ctx.project, name!)).environment, envEdits);
    if (Object.keys(body).length === 0)
      throw new UsageError('nothing to update: give at least one option (see box service update --help)');
    const s = await ctx.client.services.update(ctx.project, name!, body);
    ctx.stdout.write(
      render(
        ctx.format,
        s,
        () =>
          `service ${s.name} updated${body.auth && Object.keys(body).length === 1 ? '' : '; "box deploy ' + s.name + '" rolls it out'}\n`,
      ),
    );
  });

  cli.action(
    group.command('rm').description('delete services with their boxes and their URL').argument('<NAME...>'),
    async (ctx, names) => {
      for (const name of names) {
        await withSpinner(`deleting service ${name}`, () => ctx.client.services.delete(ctx.project, name), ctx.stderr);
        if (ctx.format === 'table') ctx.stdout.write(`service ${name} deleted\n`);
      }
    },
  );

  cli.action(
    group.command('deployments').description("a service's deployments, newest first").argument('<NAME>'),
    async (ctx, [name]) => {
      const list = await ctx.client.services.deployments(ctx.project, name!);
      ctx.stdout.write(
        render(ctx.format, list, () =>
          list.items.length ? table(list.items, deploymentColumns) : `no deployments of ${name}\n`,
        ),
      );
    },
  );
}

/** `box service …`, `box deploy` and `box rollback`: services with blue/green deployments. */
export const registerServiceCommands: Area = (program, cli) => {
  registerServiceGroup(
    program
      .command('service')
      .description('services with blue/green deploys: create, ls, get, update, rm, deployments'),
    cli,
  );

  const deploy = waitOptions(
    program
      .command('deploy')
      .description(
        "deploy a service: its next color starts beside the live one, must pass the health check, then takes the URL (-e merges over the service's environment)",
      )
      .argument('<SERVICE>')
      .argument('[CMD...]', 'after --: a new command and its arguments')
      .option('--base <BASE>', 'deploy on this base from now on')
      .option('--command <STRING>', 'a new main process, run with sh -c')
      .option('-e, --env <K=V>', 'set an environment variable from now on (repeatable)', collect),
  );
  cli.action<{ base?: string; command?: string; env?: string[] } & WaitFlags>(
    deploy,
    (ctx, [service, ...argv], opts) => {
      const body: DeployRequest = {};
      if (opts.base !== undefined) body.base = opts.base;
      const cmd = commandOf(opts, argv);
      if (cmd) body.command = cmd;
      const environment = stringMap(opts.env, 'env');
      if (environment) body.environment = environment;
      return deployment(ctx, service!, opts, 'deploying', () =>
        ctx.client.services.deploy(ctx.project, service!, body),
      );
    },
  );

  const rollback = waitOptions(
    program
      .command('rollback')
      .description('go back to the previous live deployment, health-gated like a deploy')
      .argument('<SERVICE>'),
  );
  cli.action<WaitFlags>(rollback, (ctx, [service], opts) =>
    deployment(ctx, service!, opts, 'rolling back', () => ctx.client.services.rollback(ctx.project, service!)),
  );
};
