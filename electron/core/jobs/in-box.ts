import type { Readable } from 'node:stream';
import { ApiError } from '../../../shared/errors';
import type { ContainerEngine, ExecStreams } from '../engine/container-engine';
import { SESSION_ENV } from '../engine/process-sweeper';
import { JOBS_DIR, READ_SCRIPT, RUN_SCRIPT } from './job-scripts';

/** What a look at a job's directory found. */
export interface JobState {
  stdoutBytes: number;
  stderrBytes: number;
  /** The job's wrapper still runs. */
  alive: boolean;
  /** Once it exited by itself. */
  exit: { code: number; endedAt: string } | null;
}

export const jobDir = (id: string) => `${JOBS_DIR}/${id}`;

/**
 * Starts a job's wrapper in the box and waits until it has recorded itself (so a box stopped at once
 * cannot leave a job that looks as if it were still starting). Its streams end when the job has; the
 * job goes on without them.
 */
export async function startJob(
  engine: ContainerEngine,
  containerId: string,
  job: { id: string; command: string[]; env: Record<string, string>; cwd?: string },
): Promise<ExecStreams> {
  const execId = await engine.createExec(containerId, {
    command: ['/bin/sh', '-c', RUN_SCRIPT, 'boxdesk-job', jobDir(job.id), ...job.command],
    env: { ...job.env, [SESSION_ENV]: job.id },
    cwd: job.cwd,
    tty: false,
    stdin: false,
  });
  const streams = await engine.startExec(execId, { tty: false, stdin: false });
  let said = '';
  const started = await new Promise<boolean>((resolve) => {
    const onData = (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('started\n')) resolve(true);
    };
    streams.stdout.on('data', onData);
    streams.stderr.on('data', onData);
    for (const event of ['end', 'close', 'error'] as const) streams.stdout.once(event, () => resolve(false));
  });
  streams.stdout.removeAllListeners('data');
  streams.stderr.removeAllListeners('data');
  if (!started) {
    throw new ApiError('conflict', `the job could not start in the box: ${said.trim() || 'its wrapper ended'}`, {
      hint: `Boxdesk keeps a job's output under ${JOBS_DIR}: the box needs a writable /tmp and mkfifo`,
    });
  }
  return streams;
}

/** Runs the read script; `stdout` carries output bytes, the promise its status line. */
async function readScript(
  engine: ContainerEngine,
  containerId: string,
  args: string[],
): Promise<{ stdout: Readable; status: Promise<string> }> {
  const execId = await engine.createExec(containerId, {
    command: ['/bin/sh', '-c', READ_SCRIPT, 'boxdesk-job-read', ...args],
    env: {},
    tty: false,
    stdin: false,
  });
  const { stdout, stderr } = await engine.startExec(execId, { tty: false, stdin: false });
  const status = new Promise<string>((resolve) => {
    let text = '';
    stderr.setEncoding('utf8');
    stderr.on('data', (s: string) => (text += s));
    stderr.on('end', () => resolve(text));
    stderr.on('close', () => resolve(text));
    stderr.on('error', () => resolve(text));
  });
  return { stdout, status };
}

function parseState(fields: string[]): JobState {
  const [out, err, alive, code, endedAt] = fields;
  return {
    stdoutBytes: Number(out) || 0,
    stderrBytes: Number(err) || 0,
    alive: alive === '1',
    exit:
      code !== undefined && code !== '' ? { code: Number(code), endedAt: endedAt ?? new Date().toISOString() } : null,
  };
}

/** The job's state as its directory tells it. */
export async function statJob(engine: ContainerEngine, containerId: string, id: string): Promise<JobState> {
  const { stdout, status } = await readScript(engine, containerId, [jobDir(id), id, 'stat']);
  stdout.resume();
  return parseState((await status).trim().split(/\s+/));
}

/** A stream's kept bytes from `from` (or its oldest kept byte) to its end as of now. */
export async function readJobOutput(
  engine: ContainerEngine,
  containerId: string,
  id: string,
  stream: 'stdout' | 'stderr',
  from: number,
): Promise<{ offset: number; bytes: Buffer; state: JobState }> {
  const { stdout, status } = await readScript(engine, containerId, [jobDir(id), id, 'read', stream, String(from)]);
  const chunks: Buffer[] = [];
  for await (const chunk of stdout) chunks.push(chunk as Buffer);
  const [first, ...rest] = (await status).trim().split(/\s+/);
  return { offset: Math.max(from, Number(first) || 0), bytes: Buffer.concat(chunks), state: parseState(rest) };
}

/** Resolves when the job's wrapper has gone (exited, killed, or its box stopped); for a job the core found running at start. */
export async function waitForJob(engine: ContainerEngine, containerId: string, id: string): Promise<ExecStreams> {
  const execId = await engine.createExec(containerId, {
    command: [
      '/bin/sh',
      '-c',
      'while [ ! -f "$1/exit" ] && { [ ! -f "$1/pid" ] || grep -qs "$2" "/proc/$(cat "$1/pid")/environ"; }; do sleep 1; done',
      'boxdesk-job-wait',
      jobDir(id),
      `${SESSION_ENV}=${id}`,
    ],
    env: {},
    tty: false,
    stdin: false,
  });
  return engine.startExec(execId, { tty: false, stdin: false });
}
