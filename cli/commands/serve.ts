import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Io } from '../context';
import type { Cli } from '../actions';
import { commandModule } from '../program';

/** The core's own flags (electron/core/config.ts), listed for help and completion; others pass through too. */
const CORE_FLAGS: [flag: string, help: string][] = [
  ['--host <HOST>', 'address to bind; loopback only (default 127.0.0.1)'],
  ['--port <N>', 'API port (default 7420; 0 picks a free one)'],
  ['--proxy-port <N>', 'port of the reverse proxy for published boxes (default 7421)'],
  ['--data-dir <DIR>', 'where the database and token live (default: the platform app-data dir)'],
  ['--default-base <IMAGE>', 'image of the base "default" (debian:bookworm-slim)'],
  ['--allowed-origin <URL>', 'extra browser origin allowed to call the API'],
  ['--ui-dir <DIR>', 'serve this renderer build at /'],
  ['--session-grace <S>', 'seconds a detached console lives on (default 60)'],
  ['--log-level <LEVEL>', 'fatal|error|warn|info|debug (default info)'],
  ['--rate-limit <N>', 'requests/s per token, bursts of 10x; 0 = off (default 100)'],
  ['--box-log-limit <SIZE>', 'output the engine keeps per container, rotated past it; at least 1M (default 32M)'],
  ['--proxy-connect-timeout <S>', 'seconds the preview proxy waits for a box to accept a connection (default 10)'],
  ['--proxy-header-timeout <S>', "seconds the preview proxy waits for a box's response headers (default 60)"],
];

/** The directory holding Boxdesk's package.json, found from this file (the CLI may not import electron/). */
export function packageRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (
      fs.existsSync(manifest) &&
      (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'boxdesk'
    )
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`cannot find the Boxdesk package above ${from}`);
  }
}

/** Runs the core with `flags`, its output on ours and our signals passed on; resolves with its exit status. */
function runCore(io: Io, flags: string[]): Promise<number> {
  // tsx from our own install, so `box serve` works from any directory.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(
    process.execPath,
    ['--import', tsx, path.join(packageRoot(), 'electron', 'core', 'serve.ts'), ...flags],
    {
      stdio: ['inherit', 'pipe', 'pipe'],
    },
  );
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
  for (const [flag, help] of CORE_FLAGS) cmd.option(flag, help);
  cli.localAction(cmd, (io, passThrough) => {
    const flags = cmd.options
      .filter((o) => CORE_FLAGS.some(([flag]) => flag.startsWith(`${o.long} `)))
      .flatMap((o) => {
        const value: unknown = cmd.getOptionValue(o.attributeName());
        return value === undefined ? [] : [o.long!, String(value)];
      });
    return runCore(io, [...flags, ...passThrough]);
  });
}

export const serve = commandModule('serve', [registerServe]);
