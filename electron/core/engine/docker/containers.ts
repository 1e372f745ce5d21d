import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import {
  AGENT_BINARY_PATH,
  AGENT_RUN_DIR,
  type ContainerSpec,
  type ContainerState,
  type HelperPrivileges,
  type ResourceLimits,
  EngineError,
} from '../container-engine';
import { call, labelFilter, orNull, retriedWhile, toEngineError, type DockerErrorLike } from './errors';
import { isPodman, podmanCall } from './flavor';
import { asImageId, PODMAN_NEVER_RAN } from './podman-answers';
import { logConfig } from './logs';
import { forgetAddress } from './networks';

const NANO = 1_000_000_000;

/** Every container the driver creates gets the log bound (`logLimitBytes`): see `logConfig`. */
export async function createContainer(docker: Docker, spec: ContainerSpec, logLimitBytes: number): Promise<string> {
  const container = await call(() =>
    docker.createContainer({
      name: spec.name,
      Image: spec.image,
      // With the box agent, it is PID 1: it runs the command, reaps orphans and serves exec; else tini is.
      Cmd: spec.agent ? [AGENT_BINARY_PATH, 'box', '--', ...spec.command] : spec.command,
      Entrypoint: [],
      // A helper in another container's network namespace has that container's hostname.
      ...(spec.helper?.networkOf ? {} : { Hostname: spec.hostname }),
      ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      Labels: spec.labels,
      StopSignal: 'SIGTERM',
      StopTimeout: spec.graceSeconds,
      Tty: false,
      OpenStdin: false,
      // An offline helper of its own namespace gets no network sandbox at all: with only
      // NetworkMode none, Docker still builds one and runs its libnetwork hooks (re-execs of
      // dockerd, about 70 ms of CPU each) at every start; its namespace holds a loopback either way.
      ...(spec.offline && !spec.helper?.networkOf ? { NetworkDisabled: true } : {}),
      HostConfig: {
        // No init in the host's PID namespace (the packet filter's helper): it would not be PID 1
        // there, and Podman refuses it ("PID namespace isn't private").
        Init: !spec.agent && !spec.helper?.pidHost,
        NanoCpus: spec.limits.cpus * NANO,
        Memory: spec.limits.ramMb * 1024 * 1024,
        MemorySwap: spec.limits.ramMb * 1024 * 1024,
        PidsLimit: spec.limits.pidsLimit,
        LogConfig: logConfig(logLimitBytes),
        ...(spec.storageGb ? { StorageOpt: { size: `${spec.storageGb}G` } } : {}),
        // NoCopy: a volume mounted over an image path never gets the image's files copied into it.
        ...(spec.mounts?.length
          ? {
              Mounts: spec.mounts.map((m) => ({
                Type: 'volume' as const,
                Source: m.volume,
                Target: m.path,
                ReadOnly: m.readOnly,
                VolumeOptions: { NoCopy: true } as Docker.MountSettings['VolumeOptions'],
              })),
            }
          : {}),
        ...(spec.offline ? { NetworkMode: 'none' } : {}),
        ...(spec.network ? { NetworkMode: spec.network.name } : {}),
        ...(spec.helper ? helperHostConfig(spec.helper) : {}),
        ...(spec.agent
          ? { Binds: [`${spec.agent.binary}:${AGENT_BINARY_PATH}:ro`, `${spec.agent.runDir}:${AGENT_RUN_DIR}:rw`] }
          : {}),
      },
      ...(spec.network
        ? { NetworkingConfig: { EndpointsConfig: { [spec.network.name]: { Aliases: spec.network.aliases } } } }
        : {}),
    }),
  );
  return container.id;
}

/** A helper's extra privileges (never a box's): capabilities, devices, host directories, its network. */
function helperHostConfig(helper: HelperPrivileges): Docker.HostConfig {
  return {
    CapAdd: helper.capAdd,
    Devices: helper.devices.map((path) => ({ PathOnHost: path, PathInContainer: path, CgroupPermissions: 'rwm' })),
    Binds: helper.binds.map((b) => `${b.hostPath}:${b.path}:${b.readOnly ? 'ro' : 'rw'}`),
    ...(helper.networkOf ? { NetworkMode: `container:${helper.networkOf}` } : {}),
    ...(helper.noAppArmor ? { SecurityOpt: ['apparmor=unconfined'] } : {}),
    ...(helper.pidHost ? { PidMode: 'host' } : {}),
  };
}

/**
 * A call that freezes the container's processes (a pause; a commit pauses too). The runtime gives
 * up when the cgroup does not report frozen in time, which a busy host or a process in the middle
 * of a write can cause; it thaws the container then, so asking again is safe.
 */
function freezing<T>(fn: () => Promise<T>): Promise<T> {
  return retriedWhile(fn, /unable to freeze/i, {
    attempts: FREEZE_ATTEMPTS,
    stepMs: 200,
    exhausted: (e) =>
      new EngineError(
        'failed',
        `${e.message}: the engine could not freeze the box's processes ${FREEZE_ATTEMPTS} times in a row; a process may be stuck in the kernel (on a slow disk or a hung mount); try again, or stop the box first`,
      ),
  });
}

const FREEZE_ATTEMPTS = 4;

export async function startContainer(docker: Docker, id: string): Promise<void> {
  forgetAddress(docker, id);
  try {
    await docker.getContainer(id).start();
  } catch (err) {
    // 304: already started
    if ((err as DockerErrorLike).statusCode === 304) return;
    throw toEngineError(err);
  }
  const updated = podmanLimits(docker).get(id);
  if (updated) await updateContainer(docker, id, updated);
}

const updatedOnPodman = new WeakMap<Docker, Map<string, ResourceLimits>>();

/**
 * The limits this driver last gave each container on Podman. Podman 4.3's update changes the
 * running container's cgroup but not its configuration: a restart brings back the limits it was
 * created with, and its inspect and stats keep reporting those. The driver applies these again at
 * every start and reports them in stats. They live as long as the core (docs/engines.md).
 */
export function podmanLimits(docker: Docker): Map<string, ResourceLimits> {
  let limits = updatedOnPodman.get(docker);
  if (!limits) updatedOnPodman.set(docker, (limits = new Map()));
  return limits;
}

export async function stopContainer(docker: Docker, id: string, graceSeconds: number): Promise<void> {
  try {
    // Podman refuses to stop a paused container ("container state improper"); Docker thaws it itself.
    if (await isPodman(docker)) await unpauseContainer(docker, id).catch(() => undefined);
    await docker.getContainer(id).stop({ t: graceSeconds });
  } catch (err) {
    if ((err as DockerErrorLike).statusCode === 304) return;
    throw toEngineError(err);
  } finally {
    forgetAddress(docker, id); // a dial during the stop may have cached the address it is giving up
  }
}

export async function pauseContainer(docker: Docker, id: string): Promise<void> {
  await freezing(() => docker.getContainer(id).pause());
}

export async function waitContainer(docker: Docker, id: string): Promise<number> {
  const result = (await call(() => docker.getContainer(id).wait())) as { StatusCode: number };
  if (result.StatusCode !== PODMAN_NEVER_RAN || !(await isPodman(docker))) return result.StatusCode;
  return ((await call(() => docker.getContainer(id).inspect())) as { State: { ExitCode: number } }).State.ExitCode;
}

export async function unpauseContainer(docker: Docker, id: string): Promise<void> {
  try {
    await docker.getContainer(id).unpause();
  } catch (err) {
    const e = toEngineError(err);
    if (/is not paused/.test(e.message)) return;
    throw e;
  }
}

/** A container full of processes (a fork bomb) can make one removal fail or time out: kill it and try again. */
export async function removeContainer(docker: Docker, id: string): Promise<void> {
  forgetAddress(docker, id);
  podmanLimits(docker).delete(id);
  // Podman's forced removal stops the container first, waiting out its grace period; Docker's kills.
  const podman = await isPodman(docker);
  for (let attempt = 1; ; attempt++) {
    try {
      if (podman) await killNow(docker, id);
      await docker.getContainer(id).remove({ force: true, v: true });
      return;
    } catch (err) {
      const e = toEngineError(err);
      if (e.kind === 'not_found') return;
      if (attempt >= 3 || e.kind === 'unavailable') throw e;
      if (!/already in progress/.test(e.message))
        await docker
          .getContainer(id)
          .kill()
          .catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500 * attempt));
    }
  }
}

/** SIGKILL to a container's processes, thawed first (a frozen process cannot die); one not running is fine. */
async function killNow(docker: Docker, id: string): Promise<void> {
  await unpauseContainer(docker, id).catch(() => undefined);
  await docker
    .getContainer(id)
    .kill()
    .catch(() => undefined);
}

export async function inspectContainer(docker: Docker, id: string): Promise<ContainerState | null> {
  const c = await orNull(() => docker.getContainer(id).inspect());
  if (!c) return null;
  return {
    id: c.Id,
    running: c.State.Running,
    state: c.State.Status,
    exitCode: c.State.Running ? null : c.State.ExitCode,
    oomKilled: c.State.OOMKilled,
    labels: c.Config.Labels ?? {},
    pid: c.State.Pid,
    addresses: Object.values(c.NetworkSettings?.Networks ?? {})
      .map((n) => n.IPAddress)
      .filter(Boolean),
  };
}

export async function listContainers(docker: Docker, labels: Record<string, string>): Promise<ContainerState[]> {
  const list = await call(() => docker.listContainers({ all: true, filters: { label: labelFilter(labels) } }));
  return list.map((c) => ({
    id: c.Id,
    running: c.State === 'running' || c.State === 'paused',
    state: c.State,
    exitCode: null,
    oomKilled: false,
    labels: c.Labels ?? {},
  }));
}

export async function updateContainer(docker: Docker, id: string, limits: ResourceLimits): Promise<void> {
  const bytes = limits.ramMb * 1024 * 1024;
  // Podman 4.3 has no compatible update (404): its own API's (`podman update`) takes the same limits.
  if (await isPodman(docker)) {
    await checkPodmanLimits(docker, limits);
    const resources = {
      memory: { limit: bytes, swap: bytes },
      cpu: { quota: Math.round(limits.cpus * CPU_PERIOD), period: CPU_PERIOD },
      pids: { limit: limits.pidsLimit },
    };
    await call(() => podmanCall(docker, 'POST', `/containers/${encodeURIComponent(id)}/update`, resources));
    podmanLimits(docker).set(id, limits);
    return;
  }
  await call(() =>
    docker
      .getContainer(id)
      .update({ NanoCpus: limits.cpus * NANO, Memory: bytes, MemorySwap: bytes, PidsLimit: limits.pidsLimit }),
  );
}

/**
 * Podman's own update takes limits Docker refuses (1 MB of memory, more CPUs than the machine
 * has) and the box then dies on its next exec: refused as Docker refuses them, in Docker's words.
 */
async function checkPodmanLimits(docker: Docker, limits: ResourceLimits): Promise<void> {
  if (limits.ramMb < MIN_MEMORY_MB)
    throw new EngineError('invalid', `Minimum memory limit allowed is ${MIN_MEMORY_MB}MB`);
  const { NCPU } = (await call(() => docker.info())) as { NCPU: number };
  if (limits.cpus > NCPU)
    throw new EngineError(
      'invalid',
      `range of CPUs is from 0.01 to ${NCPU}.00, as there are only ${NCPU} CPUs available`,
    );
}

/** Docker's floor for a container's memory. */
const MIN_MEMORY_MB = 6;

/** The CFS period a CPU quota is counted in (what NanoCpus means). */
const CPU_PERIOD = 100_000;

export async function renameContainer(docker: Docker, id: string, name: string): Promise<void> {
  await call(() => docker.getContainer(id).rename({ name }));
}

export async function commitContainer(docker: Docker, id: string, labels: Record<string, string>): Promise<string> {
  const result = (await freezing(() =>
    docker.getContainer(id).commit({ pause: true, changes: Object.entries(labels).map(([k, v]) => `LABEL ${k}=${v}`) }),
  )) as { Id: string };
  return asImageId(result.Id);
}

export async function exportContainer(docker: Docker, id: string): Promise<Readable> {
  return call(() => docker.getContainer(id).export() as Promise<Readable>);
}
