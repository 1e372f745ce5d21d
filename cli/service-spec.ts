/** The spec of a service's next deployment, from the command line: the options and the request bodies. */
import { Option, type Command } from 'commander';
import type { HealthCheck, ServiceCreate, ServiceUpdate } from '../shared/schemas/services';
import { UsageError, applyEdits, collect, dataMount, keyValues, stringMap, wholeNumber } from './options';
import { lifecycleBody, lifecycleOptions, type LifecycleFlags } from './lifecycle-options';

export interface SpecFlags extends LifecycleFlags {
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

export interface UpdateFlags extends SpecFlags {
  baseCommand?: boolean;
  volumes?: boolean;
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

/** `--command 'STRING'` runs through sh -c; `-- CMD ARGS` is the exact argv. */
export function commandOf(opts: { command?: string }, argv: string[]): string[] | undefined {
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
  const lifecycle = lifecycleBody(opts);
  if (lifecycle) body.lifecycle = lifecycle;
  return body;
}

/**
 * The body of PATCH /services/NAME. `environment` asks for the current
 * variables only when -e edits them: the API replaces the whole map, so one
 * --env edits rather than wipes the rest.
 */
export async function updateBody(
  opts: UpdateFlags,
  argv: string[],
  environment: () => Promise<Record<string, string>>,
): Promise<ServiceUpdate> {
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
  const lifecycle = lifecycleBody(opts);
  if (lifecycle) body.lifecycle = lifecycle;
  const envEdits = keyValues(opts.env, 'env', true);
  if (envEdits) body.environment = applyEdits(await environment(), envEdits);
  if (Object.keys(body).length === 0)
    throw new UsageError('nothing to update: give at least one option (see box service update --help)');
  return body;
}

/** The options create and update share: the spec of the next deployment. */
export function specOptions(cmd: Command, verb: 'create' | 'update'): Command {
  // The clocks (--auto-pause, --auto-stop, …) apply to the live box; a request to the URL wakes it.
  return lifecycleOptions(cmd)
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
