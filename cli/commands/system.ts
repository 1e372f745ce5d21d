import { ApiError } from '../../shared/errors';
import { SCOPES, type Scope, type TokenCreate } from '../../shared/schemas/system';
import { UsageError, expectPositionals } from '../args';
import type { Command } from '../context';
import { age, details, render, table } from '../output';
import { withProgress } from '../progress';

export const systemCommands: Command[] = [
  {
    name: 'base ls',
    usage: 'box base ls',
    summary: 'list base templates',
    run: async (ctx, args) => {
      expectPositionals(args, [], 'box base ls');
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
    },
  },
  {
    name: 'base add',
    usage: 'box base add NAME IMAGE',
    summary: 'register an image already in the engine as a base',
    run: async (ctx, args) => {
      const [name, image] = expectPositionals(args, ['NAME', 'IMAGE'], 'box base add NAME IMAGE');
      const base = await withProgress(`adding base ${name}`, () => ctx.client.createBase({ name: name!, image: image! }), ctx.stderr);
      ctx.stdout.write(render(ctx.format, base, () => `base ${base.name} added (${base.image})\n`));
    },
  },
  {
    name: 'token ls',
    usage: 'box token ls',
    summary: 'list API tokens (never their secrets)',
    run: async (ctx, args) => {
      expectPositionals(args, [], 'box token ls');
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
    },
  },
  {
    name: 'token create',
    usage: `box token create NAME --scope ${SCOPES.join('|')} [--scope ...] [--project P]`,
    summary: 'create an API token; its secret is shown once',
    options: { scope: { kind: 'list', value: 'SCOPE', help: `one of ${SCOPES.join(', ')} (repeatable)` } },
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box token create NAME --scope SCOPE [--project P]');
      const scopes = args.lists.scope ?? [];
      if (scopes.length === 0) throw new UsageError(`give at least one --scope (${SCOPES.join(', ')})`);
      const bad = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
      if (bad) throw new UsageError(`unknown scope "${bad}": use ${SCOPES.join(', ')}`);
      const body: TokenCreate = { name: name!, scopes: [...new Set(scopes)] as Scope[] };
      // Only an explicit --project restricts a token; BOX_PROJECT and the default do not.
      if (args.strings.project !== undefined) body.project = args.strings.project;
      const token = await ctx.client.createToken(body);
      ctx.stdout.write(
        render(ctx.format, token, () =>
          details([
            ['id', token.id],
            ['name', token.name],
            ['scopes', token.scopes.join(',')],
            ['project', token.project ?? '* (all projects)'],
            ['token', token.token],
          ]) + 'The secret is shown only now; store it somewhere safe.\n',
        ),
      );
    },
  },
  {
    name: 'token rm',
    usage: 'box token rm ID',
    summary: 'revoke a token',
    run: async (ctx, args) => {
      const [id] = expectPositionals(args, ['ID'], 'box token rm ID');
      await ctx.client.deleteToken(id!);
      if (ctx.format === 'table') ctx.stdout.write(`token ${id} revoked\n`);
    },
  },
  {
    name: 'version',
    usage: 'box version',
    summary: 'show the core and engine versions',
    run: async (ctx, args) => {
      expectPositionals(args, [], 'box version');
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
    },
  },
  {
    name: 'health',
    usage: 'box health',
    summary: 'check the core and its engine; exits 1 when degraded',
    run: async (ctx, args) => {
      expectPositionals(args, [], 'box health');
      const h = await ctx.client.health().catch((err: Error) => {
        if (err instanceof ApiError) throw err;
        throw new ApiError('engine_unavailable', `cannot reach the Boxdesk core at ${ctx.connection.url} (${err.message}); is it running?`);
      });
      ctx.stdout.write(
        render(ctx.format, h, () =>
          details([
            ['status', h.status],
            ['api', h.api],
            ['engine', `${h.cluster.engine} ${h.cluster.status}${h.cluster.reason ? ` (${h.cluster.reason})` : ''}`],
            ['checked', h.cluster.checked_at],
          ]),
        ),
      );
      return h.status === 'ok' ? 0 : 1;
    },
  },
];
