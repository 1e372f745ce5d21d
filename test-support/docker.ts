import Docker from 'dockerode';
import { Writable } from 'node:stream';
import { poll } from './poll';

/** Direct engine access for tests: to look behind the core's back, or act there. */
export const docker = new Docker();

export async function containersOfBox(boxId: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`boxdesk.id=${boxId}`] } });
}

export async function containersOfInstance(instance: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`boxdesk.instance=${instance}`] } });
}

/** Polls `probe` every 100 ms until it gives a value, for up to `ms`. */
export function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  ms = 15_000,
  what = 'condition',
): Promise<T> {
  return poll(probe, { ms, what, everyMs: 100 });
}

/**
 * A throwaway image: the busybox test image with /bin/sh replaced by `script`
 * (run by busybox's own sh), or removed when `script` is null. Remove it with
 * removeImage when done.
 */
export async function imageWithShell(baseImage: string, tag: string, script: string | null): Promise<string> {
  const setup =
    script === null
      ? 'rm /bin/sh'
      : `rm /bin/sh && cat > /bin/sh <<'SCRIPT'\n#!/bin/busybox sh\n${script}\nSCRIPT\nchmod 755 /bin/sh`;
  const container = await docker.createContainer({
    Image: baseImage,
    Entrypoint: [],
    Cmd: ['/bin/busybox', 'sh', '-c', setup],
    Labels: { 'boxdesk.test': 'image-builder' },
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`building ${tag}: the setup exited with ${StatusCode}`);
    const [repo, version] = tag.split(':') as [string, string];
    await container.commit({ repo, tag: version });
  } finally {
    await container.remove({ force: true });
  }
  return tag;
}

export async function removeImage(tag: string): Promise<void> {
  await docker
    .getImage(tag)
    .remove({ force: true })
    .catch(() => undefined);
}

/**
 * A running container's limits as its cgroup has them (v1 or v2): what it really gets, whatever
 * the engine's inspect says (Podman 4.3 keeps reporting the limits a container was made with).
 */
export async function cgroupLimits(id: string): Promise<{ nanoCpus: number; memoryBytes: number; pids: number }> {
  const script = [
    'if [ -f /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max',
    'else echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"',
    'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max; fi',
  ].join('; ');
  const exec = await docker.getContainer(id).exec({ Cmd: ['sh', '-c', script], AttachStdout: true });
  const stream = await exec.start({});
  let out = '';
  const stdout = new Writable({ write: (chunk: Buffer, _e, done) => ((out += chunk.toString()), done()) });
  docker.modem.demuxStream(stream, stdout, stdout);
  await new Promise((resolve) => stream.on('end', resolve));
  const [quota, period, memory, pids] = out.trim().split(/\s+/).map(Number) as [number, number, number, number];
  return { nanoCpus: Math.round((quota / period) * 1e9), memoryBytes: memory, pids };
}

/** Whether the tests' engine is Podman (the Podman lane: DOCKER_HOST at `podman system service`). */
export async function onPodman(): Promise<boolean> {
  const { Components } = (await docker.version()) as { Components?: { Name?: string }[] };
  return (Components ?? []).some((c) => /podman/i.test(c.Name ?? ''));
}
