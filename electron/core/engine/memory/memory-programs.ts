import http from 'node:http';
import posix from 'node:path/posix';
import { cat, du, mkdir, rm, touch } from './memory-file-applets';
import { dir, file, symlink, type DirNode } from './memory-fs';
import { PROGRAM_MAGIC, signalName, type Program, type ProcessContext } from './memory-process';
import { Shell } from './sh-run';

/**
 * The memory engine's built-in programs: busybox-like applets with the same
 * output as busybox for what they support. An image "has" an applet when its
 * files say so (a symlink to /bin/busybox, as in the busybox image tests use).
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

function echo(ctx: ProcessContext): number {
  const args = ctx.argv.slice(1);
  let newline = true;
  let escapes = false;
  while (/^-[neE]+$/.test(args[0] ?? '')) {
    const flags = args.shift()!;
    if (flags.includes('n')) newline = false;
    if (flags.includes('e')) escapes = true;
  }
  const text = args.join(' ');
  ctx.stdout.write((escapes ? unescape(text) : text) + (newline ? '\n' : ''));
  return 0;
}

function unescape(text: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', a: '\x07', '0': '\0' };
  return text.replace(/\\([ntr\\"a0])/g, (_, c: string) => map[c]!);
}

function printf(ctx: ProcessContext): number {
  const [format = '', ...args] = ctx.argv.slice(1);
  let out = '';
  do {
    out += unescape(format).replace(/%([%sdic])/g, (_, conv: string) => {
      if (conv === '%') return '%';
      const arg = args.shift() ?? '';
      if (conv === 'd' || conv === 'i') return String(Number.parseInt(arg, 10) || 0);
      if (conv === 'c') return arg.slice(0, 1);
      return arg;
    });
  } while (args.length && /%[sdic]/.test(format));
  ctx.stdout.write(out);
  return 0;
}

async function sleep(ctx: ProcessContext): Promise<number> {
  const arg = ctx.argv[1] ?? '';
  const m = /^(\d+(?:\.\d*)?|\.\d+|inf|infinity)([smhd]?)$/.exec(arg);
  if (!m) {
    ctx.stderr.write(`sleep: invalid number '${arg}'\n`);
    return 1;
  }
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  let left = m[1]!.startsWith('inf') ? Infinity : Number(m[1]) * unit * 1000;
  while (left > 0) {
    const step = Math.min(left, MAX_TIMER_MS);
    await ctx.sleep(step);
    left -= step;
  }
  return 0;
}

function kill(ctx: ProcessContext): number {
  const args = ctx.argv.slice(1);
  let signal = 'SIGTERM';
  if (args[0] === '-s') {
    args.shift();
    signal = signalName(args.shift() ?? '') ?? '';
  } else if (args[0]?.startsWith('-') && args.length > 1) signal = signalName(args.shift()!.slice(1)) ?? '';
  if (!signal) {
    ctx.stderr.write('kill: bad signal name\n');
    return 1;
  }
  let status = 0;
  for (const pid of args) {
    if (!ctx.kill(Number(pid), signal)) {
      ctx.stderr.write(`kill: can't kill pid ${pid}: No such process\n`);
      status = 1;
    }
  }
  return status;
}

function test(ctx: ProcessContext): number {
  const args = ctx.argv.slice(1);
  if (posix.basename(ctx.argv[0] ?? '') === '[') {
    if (args.pop() !== ']') {
      ctx.stderr.write('[: missing ]\n');
      return 2;
    }
  }
  const negate = args[0] === '!';
  if (negate) args.shift();
  const result = evaluate(ctx, args);
  if (result === null) {
    ctx.stderr.write(`test: unsupported expression: ${args.join(' ')}\n`);
    return 2;
  }
  return result !== negate ? 0 : 1;
}

function evaluate(ctx: ProcessContext, args: string[]): boolean | null {
  if (args.length === 0) return false;
  if (args.length === 1) return args[0] !== '';
  if (args.length === 2) {
    const [op, operand] = args as [string, string];
    if (op === '-n') return operand !== '';
    if (op === '-z') return operand === '';
    const node = ctx.fs.resolve(operand, op !== '-L', ctx.cwd).node;
    const checks: Record<string, boolean> = {
      '-e': Boolean(node),
      '-f': node?.kind === 'file',
      '-d': node?.kind === 'directory',
      '-L': node?.kind === 'symlink',
      '-s': node?.kind === 'file' && node.data.length > 0,
      '-x': Boolean(node && node.mode & 0o111),
    };
    return op in checks ? checks[op]! : null;
  }
  const [a, op, b] = args as [string, string, string];
  if (op === '=' || op === '==') return a === b;
  if (op === '!=') return a !== b;
  const numeric: Record<string, (x: number, y: number) => boolean> = {
    '-eq': (x, y) => x === y,
    '-ne': (x, y) => x !== y,
    '-lt': (x, y) => x < y,
    '-le': (x, y) => x <= y,
    '-gt': (x, y) => x > y,
    '-ge': (x, y) => x >= y,
  };
  return numeric[op] ? numeric[op](Number(a), Number(b)) : null;
}

/** `sh [-c SCRIPT [NAME [ARGS…]]] | sh FILE [ARGS…] | sh` (then commands are read from stdin, line by line). */
async function sh(ctx: ProcessContext): Promise<number> {
  const args = ctx.argv.slice(1);
  let script: string | null = null;
  while (args[0]?.startsWith('-') && args[0] !== '-') {
    const flags = args.shift()!.slice(1);
    for (const f of flags) {
      if (f === 'c') script = args.shift() ?? '';
      else if (!'lisx'.includes(f)) {
        ctx.stderr.write(`sh: illegal option -${f}\n`);
        return 2;
      }
    }
  }
  if (script !== null) {
    return new Shell(ctx, args[0] ?? 'sh', args.slice(1)).runScript(script);
  }
  if (args[0]) {
    const node = ctx.fs.resolve(args[0], true, ctx.cwd).node;
    if (node?.kind !== 'file') {
      ctx.stderr.write(`sh: can't open '${args[0]}': No such file or directory\n`);
      return 2;
    }
    return new Shell(ctx, args[0], args.slice(1)).runScript(node.data.toString('utf8').replace(/^#![^\n]*\n/, ''));
  }
  return interactive(ctx);
}

/** Commands from stdin, each line run as it arrives, until EOF or `exit`. */
async function interactive(ctx: ProcessContext): Promise<number> {
  const shell = new Shell(ctx, posix.basename(ctx.argv[0] ?? 'sh'), []);
  let buffered = '';
  let code = 0;
  for await (const chunk of ctx.stdin) {
    buffered += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      code = await shell.runScript(`${line.replace(/\r$/, '')}\n`);
      if (shell.exited) return code;
    }
  }
  return buffered.trim() ? shell.runScript(buffered) : code;
}

/** `cut -f N [-d C]` on stdin. */
async function cut(ctx: ProcessContext): Promise<number> {
  const args = ctx.argv.slice(1);
  const field = Number(args[args.indexOf('-f') + 1] ?? args.find((a) => a.startsWith('-f'))?.slice(2));
  const di = args.indexOf('-d');
  const delimiter = di >= 0 ? (args[di + 1] ?? '\t') : '\t';
  let text = '';
  for await (const chunk of ctx.stdin) text += Buffer.from(chunk as Buffer).toString('utf8');
  for (const line of text.split('\n').slice(0, text.endsWith('\n') ? -1 : undefined))
    ctx.stdout.write(`${line.includes(delimiter) ? (line.split(delimiter)[field - 1] ?? '') : line}\n`);
  return 0;
}

/** busybox httpd: static files from `-h DIR` on `-p [ADDR:]PORT`; without `-f` it goes to the background. */
async function httpd(ctx: ProcessContext): Promise<number> {
  const args = ctx.argv.slice(1);
  const flag = (f: string) => {
    const i = args.indexOf(f);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (!args.includes('-f')) {
    ctx.spawn(['httpd', '-f', ...args]);
    return 0;
  }
  const port = Number((flag('-p') ?? '80').split(':').at(-1));
  const home = flag('-h') ?? '/var/www';
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://box').pathname);
    let { node } = ctx.fs.resolve(posix.join(home, path), true, ctx.cwd);
    if (node?.kind === 'directory') node = ctx.fs.resolve(posix.join(home, path, 'index.html'), true, ctx.cwd).node;
    if (node?.kind !== 'file') {
      res
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<HTML><HEAD><TITLE>404 Not Found</TITLE></HEAD></HTML>\n');
      return;
    }
    const type = path.endsWith('.html') || path.endsWith('/') ? 'text/html' : 'text/plain';
    res.writeHead(200, { 'content-type': type, 'content-length': node.data.length });
    res.end(req.method === 'HEAD' ? undefined : node.data);
  });
  await ctx.listen(port, (socket) => server.emit('connection', socket));
  await new Promise<void>((resolve) => ctx.ended.addEventListener('abort', () => resolve(), { once: true }));
  server.close();
  return 0;
}

export const APPLETS: Record<string, Program> = {
  sh,
  true: () => 0,
  false: () => 1,
  echo,
  printf,
  cat,
  sleep,
  pwd: (ctx) => (ctx.stdout.write(`${ctx.cwd}\n`), 0),
  env: (ctx) => (
    ctx.stdout.write(
      Object.entries(ctx.env)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    ),
    0
  ),
  hostname: (ctx) => (ctx.stdout.write(`${ctx.hostname}\n`), 0),
  mkdir,
  rm,
  touch,
  kill,
  test,
  '[': test,
  httpd,
  du,
  cut,
};

/** busybox: runs the applet named by argv[0] (or argv[1] after `busybox`). */
const busybox: Program = (ctx) => {
  let argv = ctx.argv;
  if (posix.basename(argv[0] ?? '') === 'busybox') argv = argv.slice(1);
  const name = posix.basename(argv[0] ?? '');
  const applet = APPLETS[name];
  if (!applet) {
    ctx.stderr.write(`${name}: applet not found\n`);
    return 127;
  }
  return applet(Object.assign(Object.create(ctx) as ProcessContext, { argv }));
};

export const BUILTIN_PROGRAMS: Record<string, Program> = { busybox };

/** The first line of a file that runs program `name` of the engine's registry. */
export const programFile = (name: string, mode = 0o755) => file(`${PROGRAM_MAGIC}${name}\n`, mode);

/** A root like the busybox test image: the usual directories, /bin/busybox and its applets as symlinks. */
export function busyboxRoot(): DirNode {
  const root = dir();
  for (const [name, mode] of [
    ['bin', 0o755],
    ['etc', 0o755],
    ['tmp', 0o1777],
    ['root', 0o700],
    ['var', 0o755],
    ['usr', 0o755],
    ['proc', 0o555],
    ['sys', 0o555],
    ['dev', 0o755],
  ] as const)
    root.entries.set(name, dir(mode));
  const bin = root.entries.get('bin') as DirNode;
  bin.entries.set('busybox', programFile('busybox'));
  for (const applet of Object.keys(APPLETS)) bin.entries.set(applet, symlink('/bin/busybox'));
  const etc = root.entries.get('etc') as DirNode;
  etc.entries.set('passwd', file('root:x:0:0:root:/root:/bin/sh\n'));
  etc.entries.set('group', file('root:x:0:\n'));
  (root.entries.get('var') as DirNode).entries.set('tmp', dir(0o1777));
  (root.entries.get('usr') as DirNode).entries.set('bin', dir());
  return root;
}
