import type { Command } from 'commander';
import type { DeployRequest, Deployment, Service } from '../../shared/schemas/services';
import type { Cli } from '../actions';
import type { Context } from '../context';
import { runDeployment } from '../follow-deployment';
import { checkWaitFlags, collect, stringMap, waitOptions, type WaitFlags } from '../options';
import { age, details, map } from '../output';
import { print, printList } from '../print';
import type { CommandModule } from '../program';
import { withSpinner } from '../progress';
import { commandOf, createBody, specOptions, updateBody, type SpecFlags, type UpdateFlags } from '../service-spec';

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

function deployWaitOptions(cmd: Command): Command {
  return waitOptions(
    cmd,
    'show the steps as they happen and wait until the deployment is live (exit 0) or failed (exit 1, with the reason)',
    300,
  );
}

/** `box service create`: the service and its first deployment, followed with --wait. */
async function create(ctx: Context, name: string, argv: string[], opts: SpecFlags & WaitFlags): Promise<number> {
  const body = createBody(name, opts, argv);
  if (opts.wait) {
    // The first deployment is the newest one just after the create answers.
    const first = async () => {
      await ctx.client.services.create(ctx.project, body);
      const list = await ctx.client.services.deployments(ctx.project, name);
      if (!list.items[0]) throw new Error(`service ${name} was created without a deployment`);
      return list.items[0];
    };
    return runDeployment(ctx, name, opts, 'creating', first);
  }
  checkWaitFlags(opts);
  const s = await withSpinner(
    `creating service ${name}`,
    () => ctx.client.services.create(ctx.project, body),
    ctx.stderr,
  );
  print(
    ctx,
    s,
    () => `service ${s.name} created; its first deployment is under way (add --wait to follow it)\n${s.url}\n`,
  );
  return 0;
}

/** `box service update`: the spec of the next deployment (--auth applies at once). */
async function update(ctx: Context, name: string, argv: string[], opts: UpdateFlags): Promise<void> {
  const body = await updateBody(opts, argv, async () => (await ctx.client.services.get(ctx.project, name)).environment);
  const s = await ctx.client.services.update(ctx.project, name, body);
  const rollsOut = !(body.auth && Object.keys(body).length === 1);
  print(ctx, s, () => `service ${s.name} updated${rollsOut ? `; "box deploy ${s.name}" rolls it out` : ''}\n`);
}

/** `box service create|update`. */
function registerSpecCommands(group: Command, cli: Cli): void {
  const createCmd = group
    .command('create')
    .description('create a service and start its first deployment')
    .argument('<NAME>', 'the service name (a DNS label of at most 57 characters)')
    .argument('[CMD...]', 'after --: the command and its arguments');
  cli.action<SpecFlags & WaitFlags>(deployWaitOptions(specOptions(createCmd, 'create')), (ctx, [name, ...argv], opts) =>
    create(ctx, name!, argv, opts),
  );

  const updateCmd = specOptions(
    group
      .command('update <NAME>')
      .description('change the spec of the next deployment (--auth applies at once)')
      .argument('[CMD...]', 'after --: the command and its arguments'),
    'update',
  )
    .option('--base-command', "run the base's own command (forget --command)")
    .option('--no-volumes', 'mount no data volumes from the next deploy on');
  cli.action<UpdateFlags>(updateCmd, (ctx, [name, ...argv], opts) => update(ctx, name!, argv, opts));
}

/** `box service ls|get|rm|deployments`. */
function registerReadCommands(group: Command, cli: Cli): void {
  cli.action(group.command('ls').description('list the services of the project'), async (ctx) =>
    printList(
      ctx,
      await ctx.client.services.list(ctx.project),
      serviceColumns,
      `no services in project ${ctx.project}`,
    ),
  );
  cli.action(
    group.command('get <NAME>').description('show one service: its URL, live color, spec and health check'),
    async (ctx, [name]) => {
      const s = await ctx.client.services.get(ctx.project, name!);
      print(ctx, s, () => serviceDetails(s));
    },
  );
  cli.removal(
    group.command('rm <NAME...>').description('delete services with their boxes and their URL'),
    (ctx, name) =>
      withSpinner(`deleting service ${name}`, () => ctx.client.services.delete(ctx.project, name), ctx.stderr),
    (name) => `service ${name} deleted`,
  );
  cli.action(
    group.command('deployments <NAME>').description("a service's deployments, newest first"),
    async (ctx, [name]) =>
      printList(
        ctx,
        await ctx.client.services.deployments(ctx.project, name!),
        deploymentColumns,
        `no deployments of ${name}`,
      ),
  );
}

/** `box deploy` and `box rollback`: a new deployment of a service, health-gated. */
function registerDeploys(program: Command, cli: Cli): void {
  const deploy = program
    .command('deploy <SERVICE>')
    .description(
      "deploy a service: its next color starts beside the live one, must pass the health check, then takes the URL (-e merges over the service's environment)",
    )
    .argument('[CMD...]', 'after --: a new command and its arguments')
    .option('--base <BASE>', 'deploy on this base from now on')
    .option('--command <STRING>', 'a new main process, run with sh -c')
    .option('-e, --env <K=V>', 'set an environment variable from now on (repeatable)', collect);
  type DeployFlags = { base?: string; command?: string; env?: string[] } & WaitFlags;
  cli.action<DeployFlags>(deployWaitOptions(deploy), (ctx, [service, ...argv], opts) => {
    const body: DeployRequest = {};
    if (opts.base !== undefined) body.base = opts.base;
    const cmd = commandOf(opts, argv);
    if (cmd) body.command = cmd;
    const environment = stringMap(opts.env, 'env');
    if (environment) body.environment = environment;
    return runDeployment(ctx, service!, opts, 'deploying', () =>
      ctx.client.services.deploy(ctx.project, service!, body),
    );
  });

  const rollback = program
    .command('rollback <SERVICE>')
    .description('go back to the previous live deployment, health-gated like a deploy');
  cli.action<WaitFlags>(deployWaitOptions(rollback), (ctx, [service], opts) =>
    runDeployment(ctx, service!, opts, 'rolling back', () => ctx.client.services.rollback(ctx.project, service!)),
  );
}

/** `box service …`, `box deploy` and `box rollback`: services with blue/green deployments. */
export const services: CommandModule = {
  name: 'services',
  help: `"service create", "deploy" and "rollback" start a deployment and return at once;
with --wait they show its steps and exit 0 once it is live, 1 (with the reason)
if it failed.`,
  register(program, cli) {
    const group = program
      .command('service')
      .description('services with blue/green deploys: create, update, ls, get, rm, deployments');
    registerSpecCommands(group, cli);
    registerReadCommands(group, cli);
    registerDeploys(program, cli);
  },
};
