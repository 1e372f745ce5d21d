import { Readable } from 'node:stream';
import { file } from './memory-fs';
import type { Output, ProcessContext, ProcessIo } from './memory-process';
import type { Redirect, Word } from './sh-parse';

const discard: Output = { write: () => undefined };

/** Writes go to a file of the container, appended as they come; null (after saying why) when it cannot be made. */
function fileSink(ctx: ProcessContext, target: string, append: boolean, stderr: Output): Output | null {
  const fs = ctx.fs;
  const { components, node } = fs.resolve(target, true, ctx.cwd);
  const parent = fs.dirAt(components.slice(0, -1));
  const why = !parent
    ? 'nonexistent directory'
    : node?.kind === 'directory'
      ? 'Is a directory'
      : fs.readOnly(components)
        ? 'Read-only file system'
        : null;
  if (why) {
    stderr.write(`sh: can't create ${target}: ${why}\n`);
    return null;
  }
  const mode = node?.kind === 'file' ? node.mode : 0o644;
  let data = append && node?.kind === 'file' ? node.data : Buffer.alloc(0);
  fs.put(components, file(data, mode));
  return {
    write: (chunk) => {
      data = Buffer.concat([data, Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)]);
      fs.put(components, file(data, mode));
    },
  };
}

/** The streams after a command's redirections, or null (after saying why) when one cannot be opened. */
export function openRedirects(
  ctx: ProcessContext,
  redirects: Redirect[],
  outer: ProcessIo,
  expand: (word: Word) => string,
): ProcessIo | null {
  let stdin = outer.stdin;
  const fds: Record<number, Output> = { 1: outer.stdout, 2: outer.stderr };
  for (const r of redirects) {
    const target = expand(r.target);
    if (r.op === '>&' || r.op === '<&') {
      const source = fds[Number(target)];
      if (source && r.fd !== 0) fds[r.fd] = source;
      continue;
    }
    if (r.op === '<') {
      if (target === '/dev/null') stdin = Readable.from([]);
      else {
        const node = ctx.fs.resolve(target, true, ctx.cwd).node;
        if (node?.kind !== 'file') {
          fds[2]!.write(`sh: can't open '${target}': No such file or directory\n`);
          return null;
        }
        stdin = Readable.from([node.data]);
      }
      continue;
    }
    const sink = target === '/dev/null' ? discard : fileSink(ctx, target, r.op === '>>', fds[2]!);
    if (!sink) return null;
    fds[r.fd] = sink;
  }
  return { stdin, stdout: fds[1]!, stderr: fds[2]! };
}
