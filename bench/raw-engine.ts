import Docker from 'dockerode';
import type { Duplex } from 'node:stream';
import { DEFAULT_CONFIG, DEFAULT_GRACE_SECONDS } from '../shared/schemas/box';
import { MAIN_COMMAND } from '../electron/core/boxes/port';

/** The baseline: the Engine API through dockerode, with no core in between. */
export const docker = new Docker();

/** Every raw container carries this, so a crashed run's leftovers are found and removed. */
export const BENCH_LABEL = 'boxdesk.bench';

const NANO = 1_000_000_000;

/** The same create body the core's DockerEngine sends for a default box (same command, init, limits, as many labels). */
export function rawContainerSpec(image: string, name: string): Docker.ContainerCreateOptions {
  const bytes = DEFAULT_CONFIG.ram_mb * 1024 * 1024;
  return {
    name,
    Image: image,
    Cmd: MAIN_COMMAND,
    Entrypoint: [],
    Hostname: name.slice(0, 63),
    Env: [],
    // boxdesk.instance differs from any core's, so no core's reconciler adopts these.
    // Four labels, as the core sets.
    Labels: { [BENCH_LABEL]: '1', 'boxdesk.id': name, 'boxdesk.project': 'bench-raw', 'boxdesk.instance': 'bench-raw' },
    StopSignal: 'SIGTERM',
    StopTimeout: DEFAULT_GRACE_SECONDS,
    Tty: false,
    OpenStdin: false,
    HostConfig: { Init: true, NanoCpus: DEFAULT_CONFIG.cpus * NANO, Memory: bytes, MemorySwap: bytes },
  };
}

/** `client`: another engine than the bench's own (the Podman scenario's). */
export async function rawCreateAndStart(image: string, name: string, client = docker): Promise<string> {
  const container = await client.createContainer(rawContainerSpec(image, name));
  await container.start();
  return container.id;
}

/** What the core's removeContainer does: force, with anonymous volumes. */
export async function rawRemove(id: string, client = docker): Promise<void> {
  await client.getContainer(id).remove({ force: true, v: true });
}

/** Removes every container a bench run left behind, raw or (given its project) the core's. */
export async function removeBenchContainers(coreProject?: string): Promise<number> {
  const filters = [`${BENCH_LABEL}=1`, ...(coreProject ? [`boxdesk.project=${coreProject}`] : [])];
  let removed = 0;
  for (const label of filters) {
    const list = await docker.listContainers({ all: true, filters: { label: [label] } });
    for (const c of list) {
      await rawRemove(c.Id).catch(() => undefined);
      removed++;
    }
  }
  return removed;
}

function drain(stream: Duplex, onData: (chunk: Buffer) => void = () => undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.on('data', onData);
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
}

/**
 * A minimal correct exec client: create, start (hijacked, read to end),
 * inspect for the exit code (again at once if the engine has not recorded it yet).
 */
export async function rawExec(
  containerId: string,
  command: string[],
  client = docker,
): Promise<{ exitCode: number; bytes: number; inspects: number }> {
  const exec = await client
    .getContainer(containerId)
    .exec({ Cmd: command, AttachStdout: true, AttachStderr: true, Tty: false });
  const stream = (await exec.start({ hijack: true, stdin: false, Tty: false })) as Duplex;
  let bytes = 0;
  await drain(stream, (c) => (bytes += c.length));
  for (let i = 0; i < 100; i++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null) return { exitCode: info.ExitCode, bytes, inspects: i + 1 };
  }
  return { exitCode: -1, bytes, inspects: 100 };
}

/** A command on a TTY with stdin attached, as the core's sessions run it: the hijacked stream both ways. */
export async function rawTtyExec(containerId: string, command: string[]): Promise<Duplex> {
  const exec = await docker.getContainer(containerId).exec({
    Cmd: command,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    Env: ['TERM=xterm-256color'],
  });
  return (await exec.start({ hijack: true, stdin: true, Tty: true })) as Duplex;
}

/** Runs a command on a TTY with stdin attached (as the core's sessions do) and counts what comes out until `expected` bytes arrived or the stream ended. */
export async function rawTtyStream(
  containerId: string,
  command: string[],
  expected: number,
): Promise<{ ms: number; bytes: number }> {
  const start = performance.now();
  const stream = await rawTtyExec(containerId, command);
  let bytes = 0;
  let doneAt = 0;
  await new Promise<void>((resolve, reject) => {
    const finish = () => {
      if (!doneAt) doneAt = performance.now();
      resolve();
    };
    stream.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes >= expected) finish();
    });
    stream.on('end', finish);
    stream.on('close', finish);
    stream.on('error', reject);
  });
  stream.destroy();
  return { ms: doneAt - start, bytes };
}

export async function containerOfBox(project: string, box: string): Promise<string> {
  const list = await docker.listContainers({
    all: true,
    filters: { label: [`boxdesk.project=${project}`, `boxdesk.box=${box}`] },
  });
  if (!list[0]) throw new Error(`no container for box ${project}/${box}`);
  return list[0].Id;
}

/** Names of the processes running in a container (busybox has no ps options worth relying on). */
export async function processNames(containerId: string): Promise<string[]> {
  const exec = await docker.getContainer(containerId).exec({
    Cmd: ['sh', '-c', 'for p in /proc/[0-9]*; do cat $p/comm 2>/dev/null; done'],
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
  });
  const stream = (await exec.start({ hijack: true, stdin: false, Tty: true })) as Duplex;
  let text = '';
  await drain(stream, (c) => (text += c.toString('utf8')));
  return text
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}
