import { file, statOf, type FsNode } from './memory-fs';
import type { ProcessContext } from './memory-process';

// The memory engine's applets that work on files, with busybox's words for what goes wrong.

export async function cat(ctx: ProcessContext): Promise<number> {
  const names = ctx.argv.length > 1 ? ctx.argv.slice(1) : ['-'];
  let status = 0;
  for (const name of names) {
    if (name === '-') {
      for await (const chunk of ctx.stdin) ctx.stdout.write(chunk as Buffer);
      continue;
    }
    const node = ctx.fs.resolve(name, true, ctx.cwd).node;
    if (node?.kind === 'file') ctx.stdout.write(node.data);
    else {
      ctx.stderr.write(
        node ? 'cat: read error: Is a directory\n' : `cat: can't open '${name}': No such file or directory\n`,
      );
      status = 1;
    }
  }
  return status;
}

export function mkdir(ctx: ProcessContext): number {
  const args = ctx.argv.slice(1);
  const parents = args.includes('-p');
  let status = 0;
  for (const name of args.filter((a) => !a.startsWith('-'))) {
    const { components, node } = ctx.fs.resolve(name, true, ctx.cwd);
    if (node?.kind === 'directory' && parents) continue;
    const parent = ctx.fs.dirAt(components.slice(0, -1));
    if (node || (!parent && !parents)) {
      ctx.stderr.write(
        `mkdir: can't create directory '${name}': ${node ? 'File exists' : 'No such file or directory'}\n`,
      );
      status = 1;
      continue;
    }
    try {
      ctx.fs.mkdirs(components);
    } catch (err) {
      ctx.stderr.write(`mkdir: can't create directory '${name}': ${(err as Error).message}\n`);
      status = 1;
    }
  }
  return status;
}

export function rm(ctx: ProcessContext): number {
  const args = ctx.argv.slice(1);
  const flags = args.filter((a) => a.startsWith('-')).join('');
  let status = 0;
  for (const name of args.filter((a) => !a.startsWith('-'))) {
    const { components, node } = ctx.fs.resolve(name, false, ctx.cwd);
    if (!node) {
      if (!flags.includes('f')) {
        ctx.stderr.write(`rm: can't remove '${name}': No such file or directory\n`);
        status = 1;
      }
    } else if (node.kind === 'directory' && !/[rR]/.test(flags)) {
      ctx.stderr.write(`rm: '${name}' is a directory\n`);
      status = 1;
    } else {
      try {
        ctx.fs.remove(components);
      } catch (err) {
        ctx.stderr.write(`rm: can't remove '${name}': ${(err as Error).message}\n`);
        status = 1;
      }
    }
  }
  return status;
}

export function touch(ctx: ProcessContext): number {
  for (const name of ctx.argv.slice(1).filter((a) => !a.startsWith('-'))) {
    const { components, node } = ctx.fs.resolve(name, true, ctx.cwd);
    try {
      ctx.fs.put(components, node?.kind === 'file' ? file(node.data, node.mode) : file(''));
    } catch (err) {
      ctx.stderr.write(`touch: ${name}: ${(err as Error).message}\n`);
      return 1;
    }
  }
  return 0;
}

/** `du -s[b] PATH…`: the bytes under each path (directories count their own size, as on disk). */
export function du(ctx: ProcessContext): number {
  const total = (node: FsNode): number =>
    node.kind === 'directory'
      ? 4096 + [...node.entries.values()].reduce((n, c) => n + total(c), 0)
      : statOf('', node).size;
  let status = 0;
  for (const name of ctx.argv.slice(1).filter((a) => !a.startsWith('-'))) {
    const node = ctx.fs.resolve(name, true, ctx.cwd).node;
    if (!node) {
      ctx.stderr.write(`du: ${name}: No such file or directory\n`);
      status = 1;
    } else ctx.stdout.write(`${total(node)}\t${name}\n`);
  }
  return status;
}
