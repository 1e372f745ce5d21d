import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreArgs } from '../scripts/fresh-bundle.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The busybox base that scripts/test-env.sh imports from Debian's busybox-static. */
export const TEST_IMAGE = process.env.BOXDESK_TEST_IMAGE ?? 'boxdesk-test/busybox:1';
/**
 * The store test cores use unless a test names one (`--storage-driver`, later on the line,
 * wins): the plain copy store, which needs no helper container or loop device, so the suite's
 * hundred cores stay cheap. BOXDESK_STORAGE_DRIVER runs them all on another (a lane).
 */
export const TEST_STORAGE_DRIVER = process.env.BOXDESK_STORAGE_DRIVER ?? 'copy';

export interface CoreProcess {
  url: string;
  port: number;
  token: string;
  dataDir: string;
  child: ChildProcess;
  /** Output so far (stdout and stderr), for failure messages. */
  output(): string;
  /** SIGTERM and wait for exit; removes the data dir if this helper made it. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
}

export interface CoreOptions {
  dataDir?: string;
  port?: number;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Run the core through this command (e.g. setpriv to another user), with this node binary. */
  runAs?: { prefix: string[]; node: string };
}

export function tempDataDir(prefix = 'boxdesk-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Collects a starting core's output (stdout and stderr) until it says where it
 * listens; fails if it exits first or says nothing within 30 s.
 */
export async function waitForListening(
  child: ChildProcess,
  what: string,
): Promise<{ url: string; output(): string; exited: Promise<number | null> }> {
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 30 s:\n${output}`)), 30_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code} before listening:\n${output}`));
    });
  });
  return { url, output: () => output, exited };
}

/** Starts the real headless core (its fresh bundle, else `electron/core/serve.ts`) as a child process on a free port. */
export async function startCoreProcess(options: CoreOptions = {}): Promise<CoreProcess> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? tempDataDir();
  const args = [
    ...coreArgs(),
    '--port',
    String(options.port ?? 0),
    '--proxy-port',
    '0',
    '--data-dir',
    dataDir,
    '--default-base',
    TEST_IMAGE,
    // No warm pool unless a test asks for one (its containers would compete with the test's for the CPUs).
    '--default-warm',
    '0',
    '--storage-driver',
    TEST_STORAGE_DRIVER,
    '--log-level',
    'warn',
    ...(options.args ?? []),
  ];
  const [command, ...argv] = options.runAs
    ? [...options.runAs.prefix, options.runAs.node, ...args]
    : [process.execPath, ...args];
  const child = spawn(command!, argv, {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { url, output, exited } = await waitForListening(child, 'core');
  const token = fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
  return {
    url,
    port: Number(new URL(url).port),
    token,
    dataDir,
    child,
    output,
    /** SIGTERM and wait for exit; a data dir this helper made is removed (pass dataDir to keep it). */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** fetch with the core's token. */
export function api(
  core: Pick<CoreProcess, 'url' | 'token'>,
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(core.url + pathname, {
    method,
    headers: {
      authorization: `Bearer ${core.token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Runs `script` with sh in a box of project path `P` (`/v1/projects/<p>`) of a core process; it must exit 0. Its stdout. */
export async function shOk(
  core: Pick<CoreProcess, 'url' | 'token'>,
  P: string,
  box: string,
  script: string,
): Promise<string> {
  const res = await api(core, 'POST', `${P}/boxes/${box}/exec`, { command: ['sh', '-c', script] });
  const r = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  if (r.exit_code !== 0)
    throw new Error(`sh -c ${JSON.stringify(script)} in ${box} exited ${r.exit_code}: ${r.stderr}`);
  return r.stdout;
}
