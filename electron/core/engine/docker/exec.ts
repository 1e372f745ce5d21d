import type Docker from 'dockerode';
import type { Duplex } from 'node:stream';
import type { ExecSpec, ExecState, ExecStreams } from '../container-engine';
import { demuxedStreams, ttyStreams } from '../exec-streams';
import { call, toEngineError } from './errors';
import { execRefused } from './podman-answers';

export async function createExec(docker: Docker, containerId: string, spec: ExecSpec): Promise<string> {
  const exec = await call(() =>
    docker.getContainer(containerId).exec({
      Cmd: spec.command,
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      WorkingDir: spec.cwd,
      Tty: spec.tty,
      AttachStdin: spec.stdin,
      AttachStdout: true,
      AttachStderr: true,
    }),
  ).catch((err: unknown) => {
    const e = toEngineError(err);
    throw execRefused(containerId, e.message) ?? e;
  });
  return exec.id;
}

export async function startExec(
  docker: Docker,
  execId: string,
  options: { tty: boolean; stdin: boolean },
): Promise<ExecStreams> {
  const raw = await call(
    () => docker.getExec(execId).start({ hijack: true, stdin: options.stdin, Tty: options.tty }) as Promise<Duplex>,
  );
  return options.tty ? ttyStreams(raw, options.stdin) : demuxedStreams(raw, options.stdin);
}

export async function inspectExec(docker: Docker, execId: string): Promise<ExecState> {
  const info = await call(() => docker.getExec(execId).inspect());
  return { running: info.Running, exitCode: info.ExitCode ?? null, pid: info.Pid };
}

export async function resizeExec(docker: Docker, execId: string, cols: number, rows: number): Promise<void> {
  await call(() => docker.getExec(execId).resize({ w: cols, h: rows }));
}
