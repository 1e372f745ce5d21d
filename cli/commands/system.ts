import { Option, type Command } from 'commander';
import { ApiError } from '../../shared/errors';
import {
  SCOPES,
  type Scope,
  type PoolInfo,
  type StorageInfo,
  type Token,
  type TokenCreate,
} from '../../shared/schemas/system';
import type { Cli } from '../actions';
import { askOrRefuse } from '../confirm';
import type { Context } from '../context';
import { UsageError, collect } from '../options';
import { age, details, formatBytes } from '../output';
import { print, printList } from '../print';
import { commandModule } from '../program';

/** `loop-btrfs at PATH, 1.2 GiB of 16.0 GiB used (why a better one was not taken)`. */
export function describeStorage(s: StorageInfo): string {
  if (!s.driver) return `not started${s.reason ? ` (${s.reason})` : ''}`;
  const space =
    s.size_bytes !== null && s.used_bytes !== null
      ? `, ${formatBytes(s.used_bytes)} of ${formatBytes(s.size_bytes)} used`
      : '';
  return `${s.driver}${s.path ? ` at ${s.path}` : ''}${space}${s.reason ? ` (${s.reason})` : ''}`;
}

const tokenColumns = [
  { header: 'ID', get: (t: Token) => t.id },
  { header: 'NAME', get: (t: Token) => (t.current ? `${t.name} (this one)` : t.name) },
  { header: 'SCOPES', get: (t: Token) => t.scopes.join(',') },
  { header: 'PROJECT', get: (t: Token) => t.project ?? '*' },
  { header: 'LAST_USED', get: (t: Token) => (t.last_used_at ? `${age(t.last_used_at)} ago` : 'never') },
  { header: 'AGE', get: (t: Token) => age(t.created_at) },
];

/** `box token ls|create|rm`. */
function registerTokens(program: Command, cli: Cli): void {
  const token = program.command('token').description('API tokens: ls, create, rm');
  cli.action(token.command('ls').description('list API tokens (never their secrets)'), async (ctx) =>
    printList(ctx, await ctx.client.listTokens(), tokenColumns, 'no tokens'),
  );

  const create = token
    .command('create <NAME>')
    .description('create an API token; its secret is shown once. With -p/--project it works in that project only')
    .addOption(
      new Option('--scope <SCOPE>', 'read, write, exec or admin (repeatable)').choices(SCOPES).argParser(collect),
    );
  cli.action<{ scope?: string[] }>(create, async (ctx, [name], opts) => {
    const scopes = opts.scope ?? [];
    if (scopes.length === 0) throw new UsageError(`give at least one --scope (${SCOPES.join(', ')})`);
    const bad = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
    if (bad) throw new UsageError(`unknown scope "${bad}": use ${SCOPES.join(', ')}`);
    const body: TokenCreate = { name: name!, scopes: [...new Set(scopes)] as Scope[] };
    // Only an explicit --project restricts a token; BOX_PROJECT and the default do not.
    if (opts.project !== undefined) body.project = opts.project;
    const made = await ctx.client.createToken(body);
    print(
      ctx,
      made,
      () =>
        details([
          ['id', made.id],
          ['name', made.name],
          ['scopes', made.scopes.join(',')],
          ['project', made.project ?? '* (all projects)'],
          ['token', made.token],
        ]) + 'The secret is shown only now; store it somewhere safe.\n',
    );
  });

  cli.removal<{ force?: boolean }>(
    token
      .command('rm <ID>')
      .description('revoke a token; the one this command uses only after a yes on a terminal, or with -f')
      .option('-f, --force', 'revoke it even if it is the token this command uses'),
    async (ctx, id, _leading, opts) => {
      if (!opts.force) await refuseOwnToken(ctx, id);
      return ctx.client.deleteToken(id);
    },
    (id) => `token ${id} revoked`,
  );
}

const WAY_BACK =
  'the way back: restart the core with --new-admin-token (box serve --new-admin-token), which writes a new admin token to <data dir>/token';

/** Revoking the token in use locks this CLI out: it asks first on a terminal, and refuses without one unless forced. */
async function refuseOwnToken(ctx: Context, id: string): Promise<void> {
  const { items } = await ctx.client.listTokens();
  if (!items.some((t) => t.id === id && t.current)) return;
  await askOrRefuse(ctx, `${id} is the token this command uses: revoking it locks you out (${WAY_BACK}). Revoke it?`, {
    declined: `${id} not revoked`,
    refusal: `${id} is the token this command uses: revoking it locks you out. Pass -f/--force to revoke it anyway; ${WAY_BACK}`,
  });
}

/** Each base's warm pool: `default 2/2 ready, 5 hits`. */
function describePools(pools: PoolInfo[]): string {
  if (pools.length === 0) return 'none';
  return pools.map((p) => `${p.base} ${p.ready}/${p.size} ready, ${p.hits} hit${p.hits === 1 ? '' : 's'}`).join('; ');
}

/** `box version` and `box health`. */
function registerChecks(program: Command, cli: Cli): void {
  cli.action(program.command('version').description('show the core and engine versions'), async (ctx) => {
    const v = await ctx.client.version();
    print(ctx, v, () =>
      details([
        ['core', `${v.version} (api ${v.api})`],
        ['url', ctx.connection.url],
        ['engine', `${v.engine.name} ${v.engine.version ?? '?'} (api ${v.engine.api_version ?? '?'})`],
      ]),
    );
  });

  cli.action(
    program
      .command('health')
      .description('check the core, its engine and the default base; exits 1 when one of them is not usable'),
    async (ctx) => {
      const h = await ctx.client.health().catch((err: Error) => {
        if (err instanceof ApiError) throw err;
        throw new ApiError(
          'engine_unavailable',
          `cannot reach the Boxdesk core at ${ctx.connection.url} (${err.message}); is it running?`,
        );
      });
      // The default base and the store need a token that can read; without one, health is said without them.
      const system = await ctx.client.system().catch(() => null);
      const base = system?.default_base;
      const extra = system
        ? {
            default_base: system.default_base,
            storage: system.storage,
            engine: system.engine,
            agent: system.agent,
            proxy_edge: system.proxy_edge,
            pools: system.pools,
          }
        : {};
      print(ctx, { ...h, ...extra }, () =>
        details([
          ['status', h.status],
          ['api', h.api],
          ['engine', `${h.cluster.engine} ${h.cluster.status}${h.cluster.reason ? ` (${h.cluster.reason})` : ''}`],
          ...(system
            ? [['engine at', `${system.engine.endpoint.url} (${system.engine.endpoint.found_by})`] as [string, string]]
            : []),
          ...(base
            ? [
                ['default base', `${base.image} ${base.available ? 'available' : `missing: ${base.reason}`}`] as [
                  string,
                  string,
                ],
              ]
            : []),
          ...(system ? [['storage', describeStorage(system.storage)] as [string, string]] : []),
          ...(system
            ? [
                [
                  'box agent',
                  system.agent.available ? `version ${system.agent.version}` : `not used: ${system.agent.reason}`,
                ] as [string, string],
              ]
            : []),
          ...(system
            ? [
                [
                  'proxy edge',
                  system.proxy_edge.available
                    ? `version ${system.proxy_edge.version}: ${system.proxy_edge.requests} requests answered natively`
                    : `not used: ${system.proxy_edge.reason}`,
                ] as [string, string],
              ]
            : []),
          ...(system ? [['warm pools', describePools(system.pools)] as [string, string]] : []),
          ['checked', h.cluster.checked_at],
        ]),
      );
      // A default base boxes cannot start from is a degraded core too: `box create NAME` would fail.
      return h.status === 'ok' && base?.available !== false ? 0 : 1;
    },
  );
}

/** `box token …`, `box version` and `box health`: the core itself. */
export const system = commandModule('system', [registerTokens, registerChecks]);
