import type { Box, BoxCreate, BoxList, BoxUpdate } from '../../shared/schemas/box';
import { UsageError, expectPositionals, intOption, keyValues, stringMap, type OptionSpecs, type ParsedArgs } from '../args';
import type { Command, Context } from '../context';
import { age, details, map, render, table } from '../output';
import { withProgress } from '../progress';

const boxColumns = [
  { header: 'NAME', get: (b: Box) => b.name },
  { header: 'STATUS', get: (b: Box) => b.status },
  { header: 'BASE', get: (b: Box) => b.base },
  { header: 'CPUS', get: (b: Box) => b.config.cpus },
  { header: 'RAM_MB', get: (b: Box) => b.config.ram_mb },
  { header: 'TAGS', get: (b: Box) => map(b.tags) },
  { header: 'AGE', get: (b: Box) => age(b.created_at) },
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
    ['tags', map(b.tags)],
    ['port', b.port],
    ['grace_seconds', b.termination_grace_period_seconds],
    ['url', b.url],
    ['created', b.created_at],
    ['updated', b.updated_at],
  ]);
}

function printBox(ctx: Context, box: Box, line?: string): void {
  ctx.stdout.write(render(ctx.format, box, () => line ?? boxDetails(box)));
}

const configOptions: OptionSpecs = {
  cpus: { kind: 'string', value: 'N', help: 'CPU cores' },
  'ram-mb': { kind: 'string', value: 'N', help: 'memory limit in MiB' },
};

const createOptions: OptionSpecs = {
  base: { kind: 'string', value: 'BASE', help: 'base template (default: the default base)' },
  fork: { kind: 'string', value: 'SRC', help: 'start from a copy-on-write copy of box SRC' },
  ...configOptions,
  'storage-gb': { kind: 'string', value: 'N', help: 'root filesystem size limit in GiB' },
  env: { kind: 'list', value: 'K=V', help: 'environment variable (repeatable)' },
  tag: { kind: 'list', value: 'K=V', help: 'tag (repeatable)' },
};

function createBody(name: string, args: ParsedArgs, fork?: string): BoxCreate {
  const config = { cpus: intOption(args, 'cpus', 1), ram_mb: intOption(args, 'ram-mb', 1), storage_gb: intOption(args, 'storage-gb', 1) };
  const body: BoxCreate = { name };
  if (args.strings.base !== undefined) body.base = args.strings.base;
  if (fork ?? args.strings.fork) body.fork = fork ?? args.strings.fork;
  if (Object.values(config).some((v) => v !== undefined)) body.config = JSON.parse(JSON.stringify(config)) as BoxCreate['config'];
  const environment = stringMap(args.lists.env, 'env');
  if (environment) body.environment = environment;
  const tags = stringMap(args.lists.tag, 'tag');
  if (tags) body.tags = tags;
  return body;
}

async function create(ctx: Context, body: BoxCreate): Promise<void> {
  const verb = body.fork ? `forking ${body.fork} into ${body.name}` : `creating box ${body.name}`;
  const box = await withProgress(verb, () => ctx.client.createBox(ctx.project, body), ctx.stderr);
  printBox(ctx, box);
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

/** Applies `K=V` and `K-` edits to a copy of a map. */
export function applyEdits(current: Record<string, string>, edits: Record<string, string | null>): Record<string, string> {
  const next = { ...current };
  for (const [k, v] of Object.entries(edits)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  return next;
}

/** `N` or `none` (clear). */
function nullableInt(args: ParsedArgs, name: string): number | null | undefined {
  if (args.strings[name] === 'none') return null;
  return intOption(args, name);
}

export const boxCommands: Command[] = [
  {
    name: 'create',
    usage: 'box create NAME [--base B | --fork SRC] [--cpus N] [--ram-mb N] [--storage-gb N] [--env K=V]... [--tag K=V]...',
    summary: 'create and start a box',
    options: createOptions,
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box create NAME [options]');
      await create(ctx, createBody(name!, args));
    },
  },
  {
    name: 'fork',
    usage: 'box fork SRC NEW [--cpus N] [--ram-mb N] [--env K=V]... [--tag K=V]...',
    summary: 'create box NEW from a copy-on-write copy of box SRC',
    options: { ...configOptions, 'storage-gb': createOptions['storage-gb']!, env: createOptions.env!, tag: createOptions.tag! },
    run: async (ctx, args) => {
      const [src, name] = expectPositionals(args, ['SRC', 'NEW'], 'box fork SRC NEW');
      await create(ctx, createBody(name!, args, src));
    },
  },
  {
    name: 'ls',
    usage: 'box ls [--status S] [--tag K:V]... [--limit N] [--cursor C] [--all]',
    summary: 'list boxes in the project',
    options: {
      status: { kind: 'string', value: 'S', help: 'only boxes in this status' },
      tag: { kind: 'list', value: 'K:V', help: 'only boxes with this tag (repeatable: all must match)' },
      limit: { kind: 'string', value: 'N', help: 'page size (default 100)' },
      cursor: { kind: 'string', value: 'C', help: 'continue from a previous page' },
      all: { kind: 'boolean', help: 'follow next_cursor and list every page' },
    },
    run: async (ctx, args) => {
      expectPositionals(args, [], 'box ls [options]');
      const filter = { status: args.strings.status, tag: tagFilter(args.lists.tag), limit: intOption(args, 'limit', 1), cursor: args.strings.cursor };
      let list: BoxList = await ctx.client.listBoxes(ctx.project, filter);
      if (args.booleans.has('all')) {
        const items = [...list.items];
        while (list.next_cursor) {
          list = await ctx.client.listBoxes(ctx.project, { ...filter, cursor: list.next_cursor });
          items.push(...list.items);
        }
        list = { items, next_cursor: null };
      }
      ctx.stdout.write(render(ctx.format, list, () => (list.items.length ? table(list.items, boxColumns) : `no boxes in project ${ctx.project}\n`)));
      if (ctx.format === 'table' && list.next_cursor) ctx.stderr.write(`more boxes: add --all, or --cursor ${list.next_cursor}\n`);
    },
  },
  {
    name: 'get',
    usage: 'box get NAME',
    summary: 'show one box',
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box get NAME');
      printBox(ctx, await ctx.client.getBox(ctx.project, name!));
    },
  },
  {
    name: 'update',
    usage: 'box update NAME [--cpus N] [--ram-mb N] [--env K=V|K-]... [--tag K=V|K-]... [--port N|none] [--grace S|none]',
    summary: 'change a box; --env and --tag edit the current maps (K- removes K)',
    options: {
      ...configOptions,
      env: { kind: 'list', value: 'K=V', help: 'set an environment variable for later execs; K- removes it' },
      tag: { kind: 'list', value: 'K=V', help: 'set a tag; K- removes it' },
      port: { kind: 'string', value: 'N|none', help: 'the port the box serves on' },
      grace: { kind: 'string', value: 'S|none', help: 'termination grace period in seconds' },
    },
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box update NAME [options]');
      const body: BoxUpdate = {};
      const cpus = intOption(args, 'cpus', 1);
      const ramMb = intOption(args, 'ram-mb', 1);
      if (cpus !== undefined || ramMb !== undefined) body.config = JSON.parse(JSON.stringify({ cpus, ram_mb: ramMb })) as BoxUpdate['config'];
      const port = nullableInt(args, 'port');
      if (port !== undefined) body.port = port;
      const grace = nullableInt(args, 'grace');
      if (grace !== undefined) body.termination_grace_period_seconds = grace;
      const envEdits = keyValues(args.lists.env, 'env', true);
      const tagEdits = keyValues(args.lists.tag, 'tag', true);
      if (Object.keys(body).length === 0 && !envEdits && !tagEdits) throw new UsageError('nothing to update: give at least one of --cpus, --ram-mb, --env, --tag, --port, --grace');
      // The API replaces whole maps; read the box so one --env edits rather than wipes the rest.
      if (envEdits || tagEdits) {
        const current = await ctx.client.getBox(ctx.project, name!);
        if (envEdits) body.environment = applyEdits(current.environment, envEdits);
        if (tagEdits) body.tags = applyEdits(current.tags, tagEdits);
      }
      printBox(ctx, await ctx.client.updateBox(ctx.project, name!, body));
    },
  },
  {
    name: 'stop',
    usage: 'box stop NAME',
    summary: 'stop a box (SIGTERM, then SIGKILL after its grace period)',
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box stop NAME');
      const box = await withProgress(`stopping box ${name}`, () => ctx.client.stopBox(ctx.project, name!), ctx.stderr);
      printBox(ctx, box, `${box.name} ${box.status}\n`);
    },
  },
  {
    name: 'resume',
    usage: 'box resume NAME',
    summary: 'start a stopped box again',
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box resume NAME');
      const box = await withProgress(`resuming box ${name}`, () => ctx.client.resumeBox(ctx.project, name!), ctx.stderr);
      printBox(ctx, box, `${box.name} ${box.status}\n`);
    },
  },
  {
    name: 'rm',
    usage: 'box rm NAME...',
    summary: 'delete boxes',
    run: async (ctx, args) => {
      if (args.positionals.length === 0) throw new UsageError('missing NAME\nusage: box rm NAME...');
      for (const name of args.positionals) {
        await withProgress(`deleting box ${name}`, () => ctx.client.deleteBox(ctx.project, name), ctx.stderr);
        if (ctx.format === 'table') ctx.stdout.write(`${name} deleted\n`);
      }
    },
  },
  {
    name: 'logs',
    usage: 'box logs NAME [--tail N] [-f]',
    summary: "print the box's main process output",
    options: {
      tail: { kind: 'string', value: 'N', help: 'only the last N lines' },
      follow: { kind: 'boolean', short: 'f', help: 'keep streaming new output' },
    },
    run: async (ctx, args) => {
      const [name] = expectPositionals(args, ['NAME'], 'box logs NAME [--tail N] [-f]');
      const res = await ctx.client.logs(ctx.project, name!, { tail: intOption(args, 'tail'), follow: args.booleans.has('follow') });
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) ctx.stdout.write(chunk);
    },
  },
];
