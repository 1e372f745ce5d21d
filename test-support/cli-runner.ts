/** The real `box` CLI (cli/bin/box.mjs) as a child process, for e2e and integration tests. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ROOT, waitForListening, type CoreProcess } from './core-process';

export const BOX_BIN = path.join(ROOT, 'cli', 'bin', 'box.mjs');

/** A data dir that is never made: with it the CLI finds no token file, so only what a test passes authenticates. */
const NO_DATA_DIR = path.join(os.tmpdir(), `boxdesk-cli-no-data-dir-${process.pid}`);

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Variables on top of a clean environment (nothing of the caller's SERVICE_*, BOXDESK_*, BOX_PROJECT, BROWSER). */
  env?: NodeJS.ProcessEnv;
  /** The working directory (default: the repository). */
  cwd?: string;
  /** Bytes for stdin; without it stdin is closed at once. */
  input?: string;
  /**
   * Runs the command under `script` on a pseudo-terminal of this size, for
   * what the CLI draws only on a terminal (spinners, transfer bars). All of
   * the terminal's output is then in `stdout`; `input` is not supported.
   */
  terminal?: { cols: number; rows: number };
}

/** The CLI's environment: the caller's minus anything that could point it at another core or browser. */
export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(SERVICE_|BOXDESK_|BOX_PROJECT|BROWSER)/.test(k)) env[k] = v;
  return { ...env, BOXDESK_DATA_DIR: NO_DATA_DIR, ...extra };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Starts `box ARGS` (under `script` with options.terminal); the caller reads and ends it. */
export function spawnBox(args: readonly string[], options: CliOptions = {}): ChildProcess {
  const argv = [process.execPath, BOX_BIN, ...args];
  const { cols, rows } = options.terminal ?? {};
  const [command, commandArgs] = options.terminal
    ? ['script', ['-qec', `stty cols ${cols} rows ${rows}; ${argv.map(shellQuote).join(' ')}`, '/dev/null']]
    : [argv[0]!, argv.slice(1)];
  return spawn(command, commandArgs, {
    cwd: options.cwd ?? ROOT,
    env: cliEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs `box ARGS` to its end: its exit code and everything it wrote. */
export function runBox(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnBox(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end(options.input ?? '');
  });
}

export interface BoxCliOptions extends CliOptions {
  /** `-p PROJECT` (flags) or `BOX_PROJECT` (local). */
  project?: string;
  /**
   * How the CLI finds the core: `flags` (default) passes --url and --token;
   * `local` is how a user of the local core runs it, with SERVICE_URL and the
   * token read from the core's own token file (BOXDESK_DATA_DIR).
   */
  connection?: 'flags' | 'local';
}

/** `box ARGS` against one core (read when the command runs, so it may be started later). */
export function boxCli(
  core: () => Pick<CoreProcess, 'url' | 'token'> & { dataDir?: string },
  defaults: BoxCliOptions = {},
): (...args: string[]) => Promise<CliRun> {
  const { project, connection = 'flags', ...options } = defaults;
  return (...args) => {
    const { url, token, dataDir } = core();
    if (connection === 'local') {
      const env = { SERVICE_URL: url, BOXDESK_DATA_DIR: dataDir, ...(project && { BOX_PROJECT: project }) };
      return runBox(args, { ...options, env: { ...env, ...options.env } });
    }
    return runBox(['--url', url, '--token', token, ...(project ? ['-p', project] : []), ...args], options);
  };
}

/** The run, once it is known to have exited 0 (else a failure showing all it wrote). */
export function ok(run: CliRun, what: string): CliRun {
  assert.equal(run.code, 0, `${what} exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

/**
 * `box serve --data-dir DATADIR ARGS` until it says where it listens, as a
 * CoreProcess (its token read from the data dir, which stays the caller's).
 */
export async function startBoxServe(
  dataDir: string,
  args: readonly string[],
  options: CliOptions = {},
): Promise<CoreProcess> {
  // No warm pool unless the test asks for one (its containers would compete with the test's for the CPUs).
  const child = spawnBox(['serve', '--data-dir', dataDir, '--default-warm', '0', ...args], options);
  child.stdin!.end();
  const { url, output, exited } = await waitForListening(child, 'box serve');
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    return exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    token: fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim(),
    dataDir,
    child,
    output,
    stop: () => signal('SIGTERM'),
    kill: async () => void (await signal('SIGKILL')),
  };
}

/** A stream that keeps what is written to it, for running the CLI in-process (not a terminal: no spinners). */
export function captureStream(): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & { text(): string };
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  stream.text = () => text;
  return stream;
}
