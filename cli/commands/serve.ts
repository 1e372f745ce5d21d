import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CORE_FLAGS } from '../../shared/core-flags';
import type { Io } from '../context';
import type { Cli } from '../actions';
import { UsageError } from '../options';
import { commandModule } from '../program';

/** The directory holding Boxdesk's package.json, found from this file (the CLI may not import electron/); undefined when there is none. */
export function packageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (
      fs.existsSync(manifest) &&
      (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'boxdesk'
    )
      return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Node's arguments for the core: its fresh bundle, else its sources through tsx (scripts/fresh-bundle.mjs decides). */
async function coreArgs(): Promise<string[]> {
  const root = packageRoot();
  if (root === undefined)
    throw new UsageError(
      'box serve runs the core of a Boxdesk checkout or app, and this box was installed on its own: start the Boxdesk app, or `npm run serve` in a checkout; box finds a local core by itself',
    );
  const script = pathToFileURL(path.join(root, 'scripts', 'fresh-bundle.mjs')).href;
  const { coreArgs: args } = (await import(script)) as { coreArgs(): string[] };
  return args();
}

/** Runs the core with `flags`, its output on ours and our signals passed on; resolves with its exit status. */
async function runCore(io: Io, flags: string[]): Promise<number> {
  const child = spawn(process.execPath, [...(await coreArgs()), ...flags], {
    stdio: ['inherit', 'pipe', 'pipe'],
  });
  child.stdout.pipe(io.stdout, { end: false });
  child.stderr.pipe(io.stderr, { end: false });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const handlers = { SIGINT: forward('SIGINT'), SIGTERM: forward('SIGTERM') };
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  return new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const [s, handler] of Object.entries(handlers)) process.off(s, handler);
      resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
    });
  });
}

/** `box serve`: the headless core in the foreground. */
function registerServe(program: Command, cli: Cli): void {
  const cmd = program
    .command('serve')
    .description('run the headless core in the foreground (Ctrl-C stops it)')
    .allowUnknownOption()
    .allowExcessArguments();
  // The core's own flags (shared/core-flags.ts), listed for help and completion; others pass through too.
  for (const { flag, arg, help } of CORE_FLAGS) cmd.option(arg ? `${flag} <${arg}>` : flag, help);
  cli.localAction(cmd, (io, passThrough) => {
    const flags = CORE_FLAGS.flatMap(({ flag, arg }) => {
      const option = cmd.options.find((o) => o.long === flag)!;
      const value: unknown = cmd.getOptionValue(option.attributeName());
      if (value === undefined) return [];
      return arg ? [flag, String(value)] : [flag];
    });
    return runCore(io, [...flags, ...passThrough]);
  });
}

export const serve = commandModule('serve', [registerServe]);
