import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import { ApiError } from '../../shared/errors';
import { readNdjson } from '../../shared/calls/byte-stream';
import type { ExecStreamLine } from '../../shared/client';
import type { Context } from '../context';
import { commandsOf, planFor, type DevCommand, type UpPlan } from '../devcontainer';
import { buildAndFollow, buildSummary } from '../follow-build';
import { UsageError } from '../options';
import type { CommandModule } from '../program';
import { projectFiles } from '../project-files';
import { buildContext } from './bases';

/** A DNS label from a folder's or a devcontainer's name: lower case, dashes, at most 63. */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return s || 'box';
}

/** A context of one Dockerfile: FROM the image devcontainer.json names. */
function imageContext(image: string): Readable {
  const pack = tar.pack();
  pack.entry({ name: 'Dockerfile', mode: 0o644 }, `FROM ${image}\n`);
  pack.finalize();
  return pack as unknown as Readable;
}

/** The base the box starts from: built (a Dockerfile, an image), a Boxdesk base named, or the default. */
async function baseFor(ctx: Context, plan: UpPlan, baseName: string): Promise<string | undefined> {
  let context: Readable;
  let dockerfile = 'Dockerfile';
  let buildArgs: string[] = [];
  if (plan.image?.startsWith('boxdesk/')) return plan.image.slice('boxdesk/'.length).replace(/:latest$/, '');
  if (plan.image) context = imageContext(plan.image);
  else if (plan.build) {
    ({ tar: context, dockerfile } = buildContext(plan.build.context, plan.build.dockerfile));
    buildArgs = plan.build.args;
  } else return undefined;
  const outcome = await buildAndFollow(ctx, baseName, context, { dockerfile, buildArgs });
  ctx.stderr.write(buildSummary(baseName, outcome));
  if (outcome.build.status !== 'done') throw new ApiError('conflict', `the base of box ${baseName} was not built`);
  return baseName;
}

/** Runs a lifecycle command in the box, its output shown as it comes; answers its exit code. */
async function runLifecycle(
  ctx: Context,
  box: string,
  label: string,
  command: DevCommand | undefined,
  cwd: string,
): Promise<number> {
  for (const { label: part, argv } of commandsOf(command)) {
    ctx.stderr.write(`${label}${part ? ` (${part})` : ''}: ${argv.join(' ')}\n`);
    const res = await ctx.client.execStream(ctx.project, box, { command: argv, cwd });
    let code = 0;
    for await (const line of readNdjson<ExecStreamLine>(res.body as AsyncIterable<Uint8Array>)) {
      if (line.type === 'exit') code = line.exit_code ?? 1;
      else ctx.stderr.write(line.data);
    }
    if (code !== 0) return code;
  }
  return 0;
}

/** Copies the folder's files (minus .gitignore'd and .boxdeskignore'd ones) into the box, a few at a time. */
async function copyFiles(ctx: Context, dir: string, box: string, target: string): Promise<number> {
  const files = projectFiles(dir, { git: ['.gitignore', '.boxdeskignore'] });
  await ctx.client.makeDirectory(ctx.project, box, target, { parents: true });
  for (const d of files.dirs) await ctx.client.makeDirectory(ctx.project, box, `${target}/${d}`, { parents: true });
  const fs = await import('node:fs');
  const queue = [...files.files];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const abs = path.join(dir, file);
      const { size, mode } = fs.statSync(abs);
      await ctx.client.writeFile(ctx.project, box, `${target}/${file}`, fs.createReadStream(abs), {
        size,
        mode: (mode & 0o777).toString(8).padStart(4, '0'),
      });
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  for (const s of files.skipped) ctx.stderr.write(`box: skipped ${s}: only regular files and folders are copied\n`);
  return files.files.length;
}

async function up(ctx: Context, dir: string, nameFlag: string | undefined): Promise<number> {
  let plan: UpPlan;
  try {
    plan = planFor(dir);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const name = nameFlag ?? slug(plan.name ?? path.basename(path.resolve(dir)));
  ctx.stderr.write(`box up: ${plan.source ?? 'no devcontainer.json or Dockerfile: the default base'} → box ${name}\n`);
  for (const note of plan.notes) ctx.stderr.write(`note: ${note}\n`);
  const existing = await ctx.client.getBox(ctx.project, name).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 'not_found') return null;
    throw err;
  });
  if (existing)
    throw new ApiError(
      'already_exists',
      `box ${name} already exists in project ${ctx.project}; remove it (box rm ${name}) or give --name`,
    );
  const base = await baseFor(ctx, plan, slug(`up-${ctx.project === 'default' ? '' : `${ctx.project}-`}${name}`));
  const env = Object.keys(plan.environment).length ? { environment: plan.environment } : {};
  await ctx.client.createBox(ctx.project, { name, ...(base ? { base } : {}), ...env });
  const copied = await copyFiles(ctx, dir, name, plan.workspaceFolder);
  ctx.stderr.write(`copied ${copied} files into ${name}:${plan.workspaceFolder}\n`);
  let code = await runLifecycle(ctx, name, 'postCreateCommand', plan.postCreateCommand, plan.workspaceFolder);
  if (code === 0) code = await runLifecycle(ctx, name, 'postStartCommand', plan.postStartCommand, plan.workspaceFolder);
  if (code !== 0) ctx.stderr.write(`box: a lifecycle command exited ${code}; the box ${name} is kept as it is\n`);
  if (plan.ports.length) {
    const published = await ctx.client.publishBox(ctx.project, name, { port: plan.ports[0] });
    ctx.stderr.write(`port ${plan.ports[0]} published at ${published.url}\n`);
  }
  ctx.stdout.write(`${name}\n`);
  return code === 0 ? 0 : 1;
}

/** `box up [DIR] [--name N]`: a box from a project folder (its devcontainer.json, else its Dockerfile). */
export const upCommand: CommandModule = {
  name: 'up',
  register(program, cli) {
    cli.action<{ name?: string }>(
      program
        .command('up [DIR]')
        .description(
          "make a box from a project folder (default .): its devcontainer.json, else its Dockerfile, else the default base; its files (minus .gitignore'd and .boxdeskignore'd ones) copied into /workspace; prints the box's name last",
        )
        .option('--name <NAME>', "the box's name (default: devcontainer.json's name, else the folder's)"),
      async (ctx, [dir], opts) => {
        if (opts.name !== undefined && slug(opts.name) !== opts.name)
          throw new UsageError(`--name ${opts.name}: a box name is lower-case letters, digits and hyphens`);
        return up(ctx, dir ?? '.', opts.name);
      },
    );
  },
};
