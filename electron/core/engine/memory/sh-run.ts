import { PassThrough } from 'node:stream';
import {
  CommandError,
  signalName,
  SIGNALS,
  type MemoryProcess,
  type ProcessContext,
  type ProcessIo,
} from './memory-process';
import { parseScript, ShSyntaxError, type ShNode, type Word } from './sh-parse';
import { openRedirects } from './sh-redirect';

/** `exit` (or a fatal error) unwinding the interpreter. */
class ShellExit {
  constructor(readonly code: number) {}
}

/** One running `sh`: its variables, background jobs and traps. See sh-parse.ts for the subset it speaks. */
export class Shell {
  private readonly vars = new Map<string, string>();
  private readonly exported = new Set<string>();
  private status = 0;
  private lastBackground: MemoryProcess | null = null;
  private readonly jobs = new Set<MemoryProcess>();
  private readonly pendingTraps: string[] = [];
  private readonly trapActions = new Map<string, string>();
  /** Set while `wait` runs: a trapped signal ends the wait at once. */
  private interruptWait: (() => void) | null = null;
  /** The script ran `exit` (or the process ended). */
  exited = false;

  constructor(
    private readonly ctx: ProcessContext,
    private readonly name: string,
    private positional: string[],
  ) {
    for (const [k, v] of Object.entries(ctx.env)) {
      this.vars.set(k, v);
      this.exported.add(k);
    }
  }

  /** Runs a whole script; the answer is the exit code. */
  async runScript(src: string): Promise<number> {
    let tree: ShNode;
    try {
      tree = parseScript(src);
    } catch (err) {
      if (!(err instanceof ShSyntaxError)) throw err;
      this.ctx.stderr.write(`sh: syntax error: ${err.message}\n`);
      return 2;
    }
    try {
      await this.run(tree, this.io());
      await this.runTraps();
      return this.status;
    } catch (err) {
      if (!(err instanceof ShellExit)) throw err;
      this.exited = true;
      return err.code;
    }
  }

  private io(): ProcessIo {
    return { stdin: this.ctx.stdin, stdout: this.ctx.stdout, stderr: this.ctx.stderr };
  }

  private env(extra: Record<string, string> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const k of this.exported) if (this.vars.has(k)) env[k] = this.vars.get(k)!;
    return { ...env, ...extra };
  }

  /** Stops when the process itself has ended (killed): nothing more of the script runs. */
  private alive(): void {
    if (this.ctx.ended.aborted) throw new ShellExit(-1);
  }

  private async run(node: ShNode, io: ProcessIo): Promise<void> {
    this.alive();
    switch (node.t) {
      case 'list':
        for (const item of node.items) {
          if (item.background) this.background(item.node, io);
          else await this.run(item.node, io);
          await this.runTraps();
        }
        return;
      case 'andor':
        await this.run(node.first, io);
        for (const [op, next] of node.rest) if ((op === '&&') === (this.status === 0)) await this.run(next, io);
        return;
      case 'not':
        await this.run(node.body, io);
        this.status = this.status === 0 ? 1 : 0;
        return;
      case 'pipe':
        return this.pipe(node.commands, io);
      case 'group':
        return this.run(node.body, io);
      case 'loop':
        return this.loop(node, io);
      case 'if':
        for (const [cond, body] of node.branches) {
          await this.run(cond, io);
          if (this.status === 0) return this.run(body, io);
        }
        if (node.otherwise) await this.run(node.otherwise, io);
        else this.status = 0;
        return;
      case 'simple':
        return this.simple(node, io);
    }
  }

  private async loop(node: Extract<ShNode, { t: 'loop' }>, io: ProcessIo): Promise<void> {
    let last = 0;
    for (;;) {
      await this.run(node.cond, io);
      if ((this.status === 0) === node.until) break;
      await this.run(node.body, io);
      last = this.status;
      await this.runTraps();
      // A loop of builtins only would never give the event loop a turn.
      await new Promise((r) => setImmediate(r));
    }
    this.status = last;
  }

  /** A command with `&`: a child process running the node, so `$!` and `wait` apply to it. */
  private background(node: ShNode, io: ProcessIo): void {
    const argv =
      node.t === 'simple' && !node.assigns.length && !node.redirects.length ? this.expandAll(node.words) : null;
    if (!argv) {
      void this.run(node, io);
      return;
    }
    try {
      const child = this.ctx.spawn(argv, io, { env: this.env(), cwd: this.ctx.cwd });
      // Kept after it ends: `wait` still gets its status (once).
      this.jobs.add(child);
      this.lastBackground = child;
      this.status = 0;
    } catch (err) {
      this.status = this.notRunnable(err, io);
    }
  }

  private async pipe(commands: ShNode[], io: ProcessIo): Promise<void> {
    const runs: Promise<void>[] = [];
    let stdin = io.stdin;
    commands.forEach((command, i) => {
      const last = i === commands.length - 1;
      const pipe = last ? null : new PassThrough();
      const stage: ProcessIo = { ...io, stdin, stdout: pipe ? { write: (c) => pipe.write(c) } : io.stdout };
      runs.push(this.run(command, stage).finally(() => pipe?.end()));
      if (pipe) stdin = pipe;
    });
    const results = await Promise.allSettled(runs);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async runTraps(): Promise<void> {
    while (this.pendingTraps.length) {
      const signal = this.pendingTraps.shift()!;
      const action = this.trapActions.get(signal);
      if (action) await this.run(parseScript(action), this.io());
    }
  }

  private param(name: string): string | undefined {
    if (/^[1-9]$/.test(name)) return this.positional[Number(name) - 1];
    switch (name) {
      case '0':
        return this.name;
      case '#':
        return String(this.positional.length);
      case '?':
        return String(this.status);
      case '$':
        return String(this.ctx.pid);
      case '!':
        return this.lastBackground ? String(this.lastBackground.pid) : '';
      case '@':
      case '*':
        return this.positional.join(' ');
      case '-':
        return '';
    }
    return this.vars.get(name);
  }

  /** A word's fields: unquoted expansions split on blanks, quoted text kept whole; no globbing. */
  private expand(word: Word): string[] {
    if (word.length === 1 && word[0]!.kind === 'param' && word[0]!.name === '@' && word[0]!.quoted)
      return [...this.positional];
    const fields: string[] = [];
    let current = '';
    let started = false;
    for (const part of word) {
      if (part.kind === 'text') {
        current += part.text;
        started = true;
        continue;
      }
      let value = this.param(part.name);
      if (part.fallback && (value === undefined || (part.colon && value === '')))
        value = this.expand(part.fallback).join(' ');
      value ??= '';
      if (part.quoted) {
        current += value;
        started = true;
        continue;
      }
      const pieces = value.split(/[ \t\n]+/);
      pieces.forEach((piece, i) => {
        if (i > 0) {
          if (started) fields.push(current);
          current = '';
          started = false;
        }
        if (piece) {
          current += piece;
          started = true;
        }
      });
    }
    if (started) fields.push(current);
    return fields;
  }

  private expandAll(words: Word[]): string[] {
    return words.flatMap((w) => this.expand(w));
  }

  private notRunnable(err: unknown, io: ProcessIo): number {
    if (!(err instanceof CommandError)) throw err;
    const found = err.failure === 'permission' || err.failure === 'format';
    io.stderr.write(`sh: ${err.command}: ${found ? 'Permission denied' : 'not found'}\n`);
    return found ? 126 : 127;
  }

  private async simple(node: Extract<ShNode, { t: 'simple' }>, outer: ProcessIo): Promise<void> {
    const argv = this.expandAll(node.words);
    const assigns = node.assigns.map(([k, w]): [string, string] => [k, this.expand(w).join(' ')]);
    const io = openRedirects(this.ctx, node.redirects, outer, (w) => this.expand(w).join(' '));
    if (!io) {
      this.status = 1;
      return;
    }
    if (argv.length === 0) {
      for (const [k, v] of assigns) this.vars.set(k, v);
      this.status = 0;
      return;
    }
    const builtin = this.builtins[argv[0]!];
    if (builtin) {
      this.status = await builtin(argv.slice(1), io, Object.fromEntries(assigns));
      return;
    }
    let child: MemoryProcess;
    try {
      child = this.ctx.spawn(argv, io, { env: this.env(Object.fromEntries(assigns)), cwd: this.ctx.cwd });
    } catch (err) {
      this.status = this.notRunnable(err, io);
      return;
    }
    await new Promise<void>((resolve) => child.whenEnded(resolve));
    this.status = child.exitCode ?? 0;
  }

  private readonly builtins: Record<
    string,
    (args: string[], io: ProcessIo, assigns: Record<string, string>) => Promise<number> | number
  > = {
    ':': () => 0,
    true: () => 0,
    false: () => 1,
    exit: (args) => {
      throw new ShellExit(args[0] === undefined ? this.status : Number(args[0]) & 255);
    },
    export: (args) => {
      for (const a of args) {
        const i = a.indexOf('=');
        if (i > 0) this.vars.set(a.slice(0, i), a.slice(i + 1));
        this.exported.add(i > 0 ? a.slice(0, i) : a);
      }
      return 0;
    },
    unset: (args) => {
      for (const a of args) this.vars.delete(a);
      return 0;
    },
    cd: (args, io) => {
      const target = args[0] ?? this.vars.get('HOME') ?? '/';
      const resolved = this.ctx.fs.resolve(target, true, this.ctx.cwd);
      if (resolved.node?.kind !== 'directory') {
        io.stderr.write(`sh: cd: can't cd to ${target}: No such file or directory\n`);
        return 2;
      }
      this.ctx.cwd = '/' + resolved.components.join('/');
      return 0;
    },
    trap: (args, io) => this.trap(args, io),
    wait: (args) => this.wait(args),
    exec: async (args, io, assigns) => {
      if (!args.length) return 0;
      try {
        throw new ShellExit(await this.ctx.replace(args, this.env(assigns)));
      } catch (err) {
        if (err instanceof ShellExit) throw err;
        throw new ShellExit(this.notRunnable(err, io));
      }
    },
    command: (args, io) => {
      if (args[0] !== '-v' || !args[1]) return this.builtins.exec!(args, io, {});
      const found = this.builtins[args[1]] ? args[1] : this.ctx.which(args[1]);
      if (found) io.stdout.write(`${found}\n`);
      return found ? 0 : 1;
    },
  };

  private trap(args: string[], io: ProcessIo): number {
    if (args.length < 2) return 0;
    const [action, ...names] = args as [string, ...string[]];
    for (const raw of names) {
      const signal = signalName(raw);
      if (!signal || signal === 'SIGKILL' || raw === '0' || raw === 'EXIT') {
        if (raw === '0' || raw === 'EXIT') continue;
        io.stderr.write(`sh: trap: ${raw}: invalid signal specification\n`);
        return 1;
      }
      if (action === '-') {
        this.trapActions.delete(signal);
        this.ctx.trap(signal, 'default');
      } else if (action === '') {
        this.ctx.trap(signal, 'ignore');
      } else {
        this.trapActions.set(signal, action);
        this.ctx.trap(signal, () => {
          this.pendingTraps.push(signal);
          this.interruptWait?.();
        });
      }
    }
    return 0;
  }

  /** `wait [pid…]`: until those (or all) background jobs end; a trapped signal ends it at once (128 + n). */
  private async wait(args: string[]): Promise<number> {
    const targets = args.length ? [...this.jobs].filter((j) => args.includes(String(j.pid))) : [...this.jobs];
    if (!targets.length) return args.length ? 127 : 0;
    const interrupted = new Promise<number>((resolve) => {
      this.interruptWait = () => resolve(128 + (SIGNALS[this.pendingTraps[0] ?? 'SIGTERM'] ?? 15));
    });
    const ended = Promise.all(targets.map((t) => t.exited)).then((codes) => {
      for (const t of targets) this.jobs.delete(t);
      return args.length ? (codes.at(-1) ?? 0) : 0;
    });
    try {
      return await Promise.race([ended, interrupted]);
    } finally {
      this.interruptWait = null;
    }
  }
}
