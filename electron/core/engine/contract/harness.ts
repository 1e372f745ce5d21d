import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { ContainerEngine, ContainerSpec, ExecSpec, ExecState } from '../container-engine';

/** What every case of the contract gets: the engine under test and a few shared containers. */
export interface Contract {
  engine: ContainerEngine;
  /** A busybox image (sh, echo, cat, sleep, httpd…). */
  image: string;
  /** Labels every container, image and volume of this run carries (so cleanup finds them all). */
  labels: Record<string, string>;
  tag: string;
  /** A running container cases may exec in and write files to (each under its own path). */
  running: string;
  /** A created, never started container, for the calls that work without a process. */
  stopped: string;
  /** Creates a container labelled for this run (removed at the end). */
  create(name: string, command: string[], extra?: Partial<ContainerSpec>): Promise<string>;
}

export function newTag(): string {
  return `contract-${randomBytes(4).toString('hex')}`;
}

export function specOf(
  c: Pick<Contract, 'image' | 'labels' | 'tag'>,
  name: string,
  command: string[],
  extra: Partial<ContainerSpec> = {},
): ContainerSpec {
  return {
    name: `${c.tag}-${name}`,
    image: c.image,
    command,
    hostname: name,
    env: {},
    limits: { cpus: 1, ramMb: 128, pidsLimit: 256 },
    storageGb: null,
    graceSeconds: 1,
    ...extra,
    labels: { ...c.labels, ...extra.labels },
  };
}

export function tarOf(
  entries: Record<string, string | { type: 'directory' | 'symlink'; target?: string; mode?: number }>,
): Readable {
  const pack = tar.pack();
  for (const [name, entry] of Object.entries(entries)) {
    if (typeof entry === 'string') pack.entry({ name, mode: 0o640 }, entry);
    else if (entry.type === 'directory') pack.entry({ name, type: 'directory', mode: entry.mode ?? 0o755 });
    else pack.entry({ name, type: 'symlink', linkname: entry.target ?? '' });
  }
  pack.finalize();
  return pack as unknown as Readable;
}

export interface TarEntry {
  type: string;
  content: string;
  linkname: string | null;
}

/** The entries of a tar stream, by name. */
export async function untar(stream: Readable): Promise<Record<string, TarEntry>> {
  const extract = tar.extract();
  const entries: Record<string, TarEntry> = {};
  stream.pipe(extract);
  for await (const entry of extract) {
    const parts: Buffer[] = [];
    for await (const chunk of entry) parts.push(Buffer.from(chunk as Uint8Array));
    entries[entry.header.name] = {
      type: entry.header.type,
      content: Buffer.concat(parts).toString('utf8'),
      linkname: entry.header.linkname || null,
    };
  }
  return entries;
}

export function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (b: Buffer) => (text += b.toString('utf8')));
    stream.on('end', () => resolve(text));
    stream.on('close', () => resolve(text));
    stream.on('error', reject);
  });
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  state: ExecState;
}

/** Runs a command to its end; `input` is written to its stdin, then EOF. */
export async function run(
  engine: ContainerEngine,
  containerId: string,
  command: string[],
  options: Partial<ExecSpec> & { input?: string } = {},
): Promise<ExecResult> {
  const { input, ...spec } = options;
  const stdin = input !== undefined;
  const tty = spec.tty ?? false;
  const id = await engine.createExec(containerId, { command, env: {}, tty, stdin, ...spec });
  const streams = await engine.startExec(id, { tty, stdin });
  if (stdin) streams.stdin!.end(input);
  const [stdout, stderr] = await Promise.all([readAll(streams.stdout), readAll(streams.stderr)]);
  let state = await engine.inspectExec(id);
  for (let i = 0; i < 100 && state.running; i++) {
    await new Promise((r) => setTimeout(r, 20));
    state = await engine.inspectExec(id);
  }
  return { stdout, stderr, state };
}

/** Polls `check` until it holds (events and exits arrive a little after the call that caused them). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 10_000,
): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`still not true after ${limitMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function isEngineError(kind: string) {
  return (err: unknown) =>
    (err as { name?: string }).name === 'EngineError' && (err as { kind?: string }).kind === kind;
}
