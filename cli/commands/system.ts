import { Option } from 'commander';
import { ApiError } from '../../shared/errors';
import { SCOPES, type Scope, type StorageInfo, type TokenCreate } from '../../shared/schemas/system';
import { UsageError, collect } from '../options';
import { age, details, render, table } from '../output';
import type { Area } from '../program';
import { withSpinner } from '../progress';

const GiB = 1024 ** 3;

/** `loop-btrfs at PATH, 1.2 of 16.0 GiB used (why a better one was not taken)`. */
export function describeStorage(s: StorageInfo): string {
  if (!s.driver) return `not started${s.reason ? ` (${s.reason})` : ''}`;
  const space =
    s.size_bytes !== null && s.used_bytes !== null
      ? `, ${(s.used_bytes / GiB).toFixed(1)} of ${(s.size_bytes / GiB).toFixed(1)} GiB used`
      : '';
  return `${s.driver}${s.path ? ` at ${s.path}` : ''}${space}${s.reason ? ` (${s.reason})` : ''}`;
}

export const registerSystemCommands: Area = (program, cli) => {
  const base = program.command('base').description('base templates: ls, add');
  cli.action(base.command('ls').description('list base templates'), async (ctx) => {
    const list = await ctx.client.listBases();
    ctx.stdout.write(
      render(ctx.format, list, () =>
        table(list.items, [
          { header: 'NAME', get: (b) => b.name },
          { header: 'IMAGE', get: (b) => b.image },
          { header: 'SIZE_MB', get: (b) => (b.size_bytes === null ? null : (b.size_bytes / 1048576).toFixed(1)) },
          { header: 'AGE', get: (b) => age(b.created_at) },
        ]),
      ),
    );
  });
  cli.action(
    base
      .command('add')
      .description('register an image already in the engine as a base')
      .argument('<NAME>')
      .argument('<IMAGE>'),
    async (ctx, [name, image]) => {
      const created = await withSpinner(
        `adding base ${name}`,
        () => ctx.client.createBase({ name: name!, image: image! }),
        ctx.stderr,
      );
      ctx.stdout.write(render(ctx.format, created, () => `base ${created.name} added (${created.image})\n`));
    },
  );

  const token = program.command('token').description('API tokens: ls, create, rm');
  cli.action(token.command('ls').description('list API tokens (never their secrets)'), async (ctx) => {
    const list = await ctx.client.listTokens();
    ctx.stdout.write(
      render(ctx.format, list, () =>
        table(list.items, [
          { header: 'ID', get: (t) => t.id },
          { header: 'NAME', get: (t) => t.name },
          { header: 'SCOPES', get: (t) => t.scopes.join(',') },
          { header: 'PROJECT', get: (t) => t.project ?? '*' },
          { header: 'LAST_USED', get: (t) => (t.last_used_at ? `${age(t.last_used_at)} ago` : 'never') },
          { header: 'AGE', get: (t) => age(t.created_at) },
        ]),
      ),
    );
  });

  const create = token
    .command('create')
    .description('create an API token; its secret is shown once. With -p/--project it works in that project only')
    .argument('<NAME>')
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
    ctx.stdout.write(
      render(
        ctx.format,
        made,
        () =>
          details([
            ['id', made.id],
            ['name', made.name],
            ['scopes', made.scopes.join(',')],
            ['project', made.project ?? '* (all projects)'],
            ['token', made.token],
          ]) + 'The secret is shown only now; store it somewhere safe.\n',
      ),
    );
  });

  cli.action(token.command('rm').description('revoke a token').argument('<ID>'), async (ctx, [id]) => {
    await ctx.client.deleteToken(id!);
    if (ctx.format === 'table') ctx.stdout.write(`token ${id} revoked\n`);
  });

  cli.action(program.command('version').description('show the core and engine versions'), async (ctx) => {
    const v = await ctx.client.version();
    ctx.stdout.write(
      render(ctx.format, v, () =>
        details([
          ['core', `${v.version} (api ${v.api})`],
          ['url', ctx.connection.url],
          ['engine', `${v.engine.name} ${v.engine.version ?? '?'} (api ${v.engine.api_version ?? '?'})`],
        ]),
      ),
    );
  });

  cli.action(
    program.command('health').description('check the core and its engine; exits 1 when degraded'),
    async (ctx) => {
      const h = await ctx.client.health().catch((err: Error) => {
        if (err instanceof ApiError) throw err;
        throw new ApiError(
          'engine_unavailable',
          `cannot reach the Boxdesk core at ${ctx.connection.url} (${err.message}); is it running?`,
        );
      });
      // The store needs a token that can read; without one, health is said without it.
      const storage = await ctx.client
        .system()
        .then((s) => s.storage)
        .catch(() => null);
      ctx.stdout.write(
        render(ctx.format, storage ? { ...h, storage } : h, () =>
          details([
            ['status', h.status],
            ['api', h.api],
            ['engine', `${h.cluster.engine} ${h.cluster.status}${h.cluster.reason ? ` (${h.cluster.reason})` : ''}`],
            ...(storage ? [['storage', describeStorage(storage)] as [string, string]] : []),
            ['checked', h.cluster.checked_at],
          ]),
        ),
      );
      return h.status === 'ok' ? 0 : 1;
    },
  );
};
