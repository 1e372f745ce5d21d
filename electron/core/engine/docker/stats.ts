import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import type { ContainerStats } from '../container-engine';
import { podmanLimits } from './containers';
import { call } from './errors';
import { onLines } from './json-lines';

interface DockerStats {
  read: string;
  cpu_stats: {
    cpu_usage: { total_usage: number; percpu_usage?: number[] };
    system_cpu_usage?: number;
    online_cpus?: number;
  };
  precpu_stats: { cpu_usage: { total_usage: number }; system_cpu_usage?: number };
  memory_stats: { usage?: number; limit?: number; stats?: Record<string, number> };
  pids_stats?: { current?: number };
  networks?: Record<string, { rx_bytes: number; tx_bytes: number }>;
  blkio_stats?: { io_service_bytes_recursive?: { op: string; value: number }[] | null };
}

/** The engine's raw sample as the domain's; CPU from the delta against the previous sample, as `docker stats` does. */
export function toContainerStats(s: DockerStats): ContainerStats {
  const cpuDelta = s.cpu_stats.cpu_usage.total_usage - (s.precpu_stats.cpu_usage?.total_usage ?? 0);
  const systemDelta = (s.cpu_stats.system_cpu_usage ?? 0) - (s.precpu_stats.system_cpu_usage ?? 0);
  const cpus = s.cpu_stats.online_cpus ?? s.cpu_stats.cpu_usage.percpu_usage?.length ?? 1;
  const cpuPercent = systemDelta > 0 && cpuDelta > 0 ? (cpuDelta / systemDelta) * cpus * 100 : 0;
  const mem = s.memory_stats.stats ?? {};
  // cgroup v2 names it inactive_file, v1 total_inactive_file; old engines subtracted cache.
  const reclaimable = mem.inactive_file ?? mem.total_inactive_file ?? mem.cache ?? 0;
  const usage = s.memory_stats.usage ?? 0;
  const nets = Object.values(s.networks ?? {});
  const io = s.blkio_stats?.io_service_bytes_recursive ?? [];
  const sumIo = (op: string) => io.filter((e) => e.op.toLowerCase() === op).reduce((n, e) => n + e.value, 0);
  return {
    cpu_percent: Math.round(cpuPercent * 100) / 100,
    memory_bytes: Math.max(0, usage - reclaimable),
    memory_limit_bytes: s.memory_stats.limit ?? 0,
    pids: s.pids_stats?.current ?? 0,
    net_rx_bytes: nets.reduce((n, e) => n + e.rx_bytes, 0),
    net_tx_bytes: nets.reduce((n, e) => n + e.tx_bytes, 0),
    block_read_bytes: sumIo('read'),
    block_write_bytes: sumIo('write'),
    at: new Date(s.read).toISOString(),
  };
}

export async function stats(docker: Docker, containerId: string): Promise<ContainerStats> {
  const raw = (await call(() => docker.getContainer(containerId).stats({ stream: false }))) as unknown as DockerStats;
  // Podman answers nothing for a container that does not run (Docker: a sample of zeros).
  if (!raw?.cpu_stats) return { ...IDLE, at: new Date().toISOString() };
  return asUpdated(docker, containerId, toContainerStats(raw));
}

const IDLE: Omit<ContainerStats, 'at'> = {
  ...{ cpu_percent: 0, memory_bytes: 0, memory_limit_bytes: 0, pids: 0 },
  ...{ net_rx_bytes: 0, net_tx_bytes: 0, block_read_bytes: 0, block_write_bytes: 0 },
};

/** A sample with the memory limit the driver last set on Podman, which Podman itself does not report (containers.ts). */
function asUpdated(docker: Docker, containerId: string, sample: ContainerStats): ContainerStats {
  const limits = podmanLimits(docker).get(containerId);
  return limits && sample.memory_limit_bytes > 0
    ? { ...sample, memory_limit_bytes: limits.ramMb * 1024 * 1024 }
    : sample;
}

export async function streamStats(
  docker: Docker,
  containerId: string,
  onSample: (sample: ContainerStats) => void,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) return;
  const stream = (await call(() => docker.getContainer(containerId).stats({ stream: true }))) as unknown as Readable;
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => stream.destroy();
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (err?: Error) => {
      signal.removeEventListener('abort', onAbort);
      if (err && !signal.aborted) reject(err);
      else resolve();
    };
    onLines(stream, (line) =>
      onSample(asUpdated(docker, containerId, toContainerStats(JSON.parse(line) as DockerStats))),
    );
    stream.on('end', () => done());
    stream.on('close', () => done());
    stream.on('error', (err: Error) => done(err));
  });
}
