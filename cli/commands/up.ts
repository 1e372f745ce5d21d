import path from 'node:path';
import { upLineText } from '../../shared/calls/up';
import type { UpDone } from '../../shared/schemas/up';
import type { Context } from '../context';
import { UsageError } from '../options';
import { print } from '../print';
import type { CommandModule } from '../program';
import { packFiles, projectFiles } from '../project-files';

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Sends the folder (minus what .gitignore and .boxdeskignore say) to POST …/up and shows its
 * answer as it comes: the core reads the devcontainer.json, builds, copies and runs.
 */
async function up(ctx: Context, dir: string, name: string | undefined): Promise<number> {
  const fs = await import('node:fs');
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`"${dir}" is not a folder`);
  const files = projectFiles(dir, { git: ['.gitignore', '.boxdeskignore'] });
  for (const s of files.skipped) ctx.stderr.write(`box: skipped ${s}: only regular files and folders are sent\n`);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  let done: UpDone | null = null;
  let failed = false;
  try {
    const lines = ctx.client.up(ctx.project, packFiles(dir, files), {
      ...(name ? { name } : {}),
      folder: path.basename(path.resolve(dir)),
      signal: controller.signal,
    });
    for await (const line of lines) {
      ctx.stderr.write(upLineText(line, 'box: '));
      if (line.type === 'done') done = line;
      if (line.type === 'error') failed = true;
    }
  } catch (err) {
    // Ctrl-C closes the answer: the core cancels a build in progress and stops a running command.
    if (!controller.signal.aborted) throw err;
    ctx.stderr.write('box up: cancelled (a box already made is kept; box up again to finish it)\n');
    return 130;
  } finally {
    process.off('SIGINT', stop);
  }
  if (!done) {
    if (!failed) ctx.stderr.write('box: the core ended its answer before naming the box; see box ls\n');
    return 1;
  }
  const box = done;
  print(ctx, box, () => `${box.box}\n`);
  return box.exit_code === 0 ? 0 : 1;
}

/** `box up [DIR] [--name N]`: a box from a project folder (its devcontainer.json, else its Dockerfile). */
export const upCommand: CommandModule = {
  name: 'up',
  register(program, cli) {
    cli.action<{ name?: string }>(
      program
        .command('up [DIR]')
        .description(
          "make a box from a project folder (default .): its devcontainer.json, else its Dockerfile, else the default base; its files (minus .gitignore'd and .boxdeskignore'd ones) copied into /workspace; again on the same folder, the box is brought up to date (the base rebuilt with its cache, added and changed files copied in, what changed listed); prints the box's name last",
        )
        .option('--name <NAME>', "the box's name (default: devcontainer.json's name, else the folder's)"),
      async (ctx, [dir], opts) => {
        if (opts.name !== undefined && !NAME.test(opts.name))
          throw new UsageError(`--name ${opts.name}: a box name is lower-case letters, digits and hyphens`);
        return up(ctx, dir ?? '.', opts.name);
      },
    );
  },
};
