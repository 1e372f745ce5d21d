import type Docker from 'dockerode';
import { Writable } from 'node:stream';
import { EngineError } from '../container-engine';
import { call } from './errors';

/**
 * Removing and renaming a path on Podman. Docker's archive extractor removes what is at an entry's
 * path before it refuses an unknown entry type, which archive.ts turns into a delete that works
 * on stopped containers too; Podman 4.3's refuses the entry without removing anything. So on
 * Podman a running container gets a shell command instead (`rm -rf`, `mv`), and a stopped or
 * paused one a 409 that says what to do (docs/engines.md).
 */
export async function podmanRemove(docker: Docker, containerId: string, target: string): Promise<void> {
  await runInContainer(docker, containerId, `delete ${target}`, ['rm', '-rf', '--', target]);
}

export async function podmanRename(docker: Docker, containerId: string, from: string, to: string): Promise<void> {
  // As the archive call: never a directory replaced by a non-directory or the reverse.
  const script =
    'if [ -d "$2" ] && [ ! -d "$1" ]; then echo "cannot overwrite directory $2 with non-directory $1" >&2; exit 3; fi; ' +
    'if [ -e "$2" ] && [ ! -d "$2" ] && [ -d "$1" ]; then echo "cannot overwrite non-directory $2 with directory $1" >&2; exit 3; fi; ' +
    'mv -f -- "$1" "$2"';
  await runInContainer(docker, containerId, `rename ${from} to ${to}`, ['sh', '-c', script, 'sh', from, to]);
}

async function runInContainer(docker: Docker, containerId: string, what: string, command: string[]): Promise<void> {
  const container = docker.getContainer(containerId);
  const { State } = await call(() => container.inspect());
  if (!State.Running || State.Paused)
    throw new EngineError(
      'conflict',
      `Podman cannot ${what} in a ${State.Paused ? 'paused' : 'stopped'} box: its archive API adds files but cannot remove or rename them; start (or wake) the box and try again`,
    );
  const exec = await call(() => container.exec({ Cmd: command, AttachStdout: true, AttachStderr: true }));
  const stream = await call(() => exec.start({}));
  let stderr = '';
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const errors = new Writable({ write: (chunk: Buffer, _encoding, done) => ((stderr += chunk.toString()), done()) });
  docker.modem.demuxStream(stream, sink, errors);
  await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
  const { ExitCode } = await call(() => exec.inspect());
  if (ExitCode === 0) return;
  const message = stderr.trim() || `exit code ${ExitCode}`;
  if (ExitCode === 3) throw new EngineError('invalid', message);
  throw new EngineError('failed', `could not ${what}: ${message}`);
}
