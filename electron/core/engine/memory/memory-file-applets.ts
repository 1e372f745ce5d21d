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

/**
 * Runs `apply` on each operand (each argument that is no option). A complaint it answers, or
 * `failure(name)` with the message of what it throws, goes to stderr and makes the status 1.
 */
function eachOperand(
  ctx: ProcessContext,
  failure: (name: string) => string,
  apply: (name: string) => string | undefined,
): number {
  let status = 0;
  for (const name of ctx.argv.slice(1).filter((a) => !a.startsWith('-'))) {
    let complaint: string | undefined;
    try {
      complaint = apply(name);
    } catch (err) {
      complaint = `${failure(name)}: ${(err as Error).message}`;
    }
    if (complaint === undefined) continue;
    ctx.stderr.write(`${complaint}\n`);
    status = 1;
  }
  return status;
}

export function mkdir(ctx: ProcessContext): number {
  const parents = ctx.argv.slice(1).includes('-p');
  const failure = (name: string) => `mkdir: can't create directory '${name}'`;
  return eachOperand(ctx, failure, (name) => {
    const { components, node } = ctx.fs.resolve(name, true, ctx.cwd);
    if (node?.kind === 'directory' && parents) return undefined;
    if (node) return `${failure(name)}: File exists`;
    if (!parents && !ctx.fs.dirAt(components.slice(0, -1))) return `${failure(name)}: No such file or directory`;
    ctx.fs.mkdirs(components);
    return undefined;
  });
}

export function rm(ctx: ProcessContext): number {
  const flags = ctx.argv
    .slice(1)
    .filter((a) => a.startsWith('-'))
    .join('');
  const failure = (name: string) => `rm: can't remove '${name}'`;
  return eachOperand(ctx, failure, (name) => {
    const { components, node } = ctx.fs.resolve(name, false, ctx.cwd);
    if (!node) return flags.includes('f') ? undefined : `${failure(name)}: No such file or directory`;
    if (node.kind === 'directory' && !/[rR]/.test(flags)) return `rm: '${name}' is a directory`;
    ctx.fs.remove(components);
    return undefined;
  });
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
