import Docker from 'dockerode';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { DEFAULT_BOX_LOG_LIMIT } from '../../config';
import type { Disposable } from '../../lifetime';
import './docker-modem-redirects';
import {
  EngineError,
  type ContainerEngine,
  type ContainerEvent,
  type ContainerSpec,
  type ContainerState,
  type ContainerStats,
  type EngineInfo,
  type ExecSpec,
  type ExecState,
  type ExecStreams,
  type ImageDetails,
  type ImageImportOptions,
  type ImageInfo,
  type PathChange,
  type PathStat,
  type ResourceLimits,
  type VolumeInfo,
  type VolumeOptions,
} from '../container-engine';
import * as archive from './archive';
import * as containers from './containers';
import { call } from './errors';
import * as events from './events';
import * as exec from './exec';
import * as images from './images';
import * as logStreams from './logs';
import * as networks from './networks';
import * as samples from './stats';
import * as volumes from './volumes';

/** The Docker Engine API through dockerode; each resource lives in its own file beside this one. */
export class DockerEngine implements ContainerEngine {
  readonly name = 'docker';
  private readonly docker: Docker;

  private readonly logLimitBytes: number;

  /**
   * Honours DOCKER_HOST (and the TLS variables) like the docker CLI does. `logLimitBytes` bounds the
   * output the engine keeps of each container it creates (default: the core's `--box-log-limit` default).
   */
  constructor(options?: Docker.DockerOptions, settings: { logLimitBytes?: number } = {}) {
    this.docker = new Docker(options);
    this.logLimitBytes = settings.logLimitBytes ?? DEFAULT_BOX_LOG_LIMIT;
  }

  async ping(timeoutMs = 2000): Promise<void> {
    await call(() =>
      Promise.race([
        this.docker.ping(),
        new Promise((_, reject) =>
          setTimeout(
            () => reject(new EngineError('unavailable', `the container engine did not answer within ${timeoutMs} ms`)),
            timeoutMs,
          ).unref(),
        ),
      ]),
    );
  }

  async info(): Promise<EngineInfo> {
    const [version, info] = await call(() => Promise.all([this.docker.version(), this.docker.info()]));
    const driverStatus: [string, string][] = info.DriverStatus ?? [];
    const backing = driverStatus.find(([k]) => k === 'Backing Filesystem')?.[1] ?? '';
    // overlay2 limits a container's root only on xfs with pquota; these drivers always can.
    const storageLimit =
      ['btrfs', 'zfs', 'devicemapper', 'windowsfilter'].includes(info.Driver) ||
      (info.Driver === 'overlay2' && backing === 'xfs');
    return {
      name: this.name,
      version: version.Version,
      apiVersion: version.ApiVersion,
      storageLimit,
      cpus: info.NCPU,
      memoryBytes: info.MemTotal,
    };
  }

  inspectImage = (ref: string): Promise<ImageDetails | null> => images.inspectImage(this.docker, ref);
  pullImage = (ref: string, onProgress: (line: string) => void): Promise<void> =>
    images.pullImage(this.docker, ref, onProgress);
  listImages = (labels: Record<string, string>): Promise<ImageInfo[]> => images.listImages(this.docker, labels);
  removeImage = (id: string): Promise<void> => images.removeImage(this.docker, id);
  importImage = (tar: Readable, options: ImageImportOptions): Promise<string> =>
    images.importImage(this.docker, tar, options);

  createContainer = (spec: ContainerSpec): Promise<string> =>
    containers.createContainer(this.docker, spec, this.logLimitBytes);
  startContainer = (id: string): Promise<void> => containers.startContainer(this.docker, id);
  stopContainer = (id: string, graceSeconds: number): Promise<void> =>
    containers.stopContainer(this.docker, id, graceSeconds);
  pauseContainer = (id: string): Promise<void> => containers.pauseContainer(this.docker, id);
  waitContainer = (id: string): Promise<number> => containers.waitContainer(this.docker, id);
  unpauseContainer = (id: string): Promise<void> => containers.unpauseContainer(this.docker, id);
  removeContainer = (id: string): Promise<void> => containers.removeContainer(this.docker, id);
  inspectContainer = (id: string): Promise<ContainerState | null> => containers.inspectContainer(this.docker, id);
  listContainers = (labels: Record<string, string>): Promise<ContainerState[]> =>
    containers.listContainers(this.docker, labels);
  updateContainer = (id: string, limits: ResourceLimits): Promise<void> =>
    containers.updateContainer(this.docker, id, limits);
  commitContainer = (id: string, labels: Record<string, string>): Promise<string> =>
    containers.commitContainer(this.docker, id, labels);
  exportContainer = (id: string): Promise<Readable> => containers.exportContainer(this.docker, id);
  logs = (id: string, options: { tail?: number; follow: boolean }): Promise<Readable> =>
    logStreams.logs(this.docker, id, options);
  watchEvents = (
    labels: Record<string, string>,
    onEvent: (event: ContainerEvent) => void,
    onEnd: (err?: Error) => void,
  ): Promise<Disposable> => events.watchEvents(this.docker, labels, onEvent, onEnd);

  createExec = (containerId: string, spec: ExecSpec): Promise<string> =>
    exec.createExec(this.docker, containerId, spec);
  startExec = (execId: string, options: { tty: boolean; stdin: boolean }): Promise<ExecStreams> =>
    exec.startExec(this.docker, execId, options);
  inspectExec = (execId: string): Promise<ExecState> => exec.inspectExec(this.docker, execId);
  resizeExec = (execId: string, cols: number, rows: number): Promise<void> =>
    exec.resizeExec(this.docker, execId, cols, rows);

  getArchive = (containerId: string, path: string): Promise<Readable> =>
    archive.getArchive(this.docker, containerId, path);
  putArchive = (containerId: string, dirPath: string, tar: Readable): Promise<void> =>
    archive.putArchive(this.docker, containerId, dirPath, tar);
  removePath = (containerId: string, path: string): Promise<void> => archive.removePath(this.docker, containerId, path);
  renamePath = (containerId: string, from: string, to: string, mode: number): Promise<void> =>
    archive.renamePath(this.docker, containerId, from, to, mode);
  statPath = (containerId: string, path: string): Promise<PathStat | null> =>
    archive.statPath(this.docker, containerId, path);
  containerChanges = (containerId: string): Promise<PathChange[]> => archive.containerChanges(this.docker, containerId);

  createVolume = (name: string, labels: Record<string, string>, options?: VolumeOptions): Promise<VolumeInfo> =>
    volumes.createVolume(this.docker, name, labels, options);
  removeVolume = (name: string): Promise<void> => volumes.removeVolume(this.docker, name);
  listVolumes = (labels: Record<string, string>): Promise<VolumeInfo[]> => volumes.listVolumes(this.docker, labels);
  inspectVolume = (name: string): Promise<VolumeInfo | null> => volumes.inspectVolume(this.docker, name);

  ensureNetwork = (name: string, labels: Record<string, string>): Promise<string> =>
    networks.ensureNetwork(this.docker, name, labels);
  removeNetwork = (name: string): Promise<void> => networks.removeNetwork(this.docker, name);
  connectNetwork = (network: string, containerId: string): Promise<void> =>
    networks.connectNetwork(this.docker, network, containerId);
  connect = (containerId: string, port: number): Promise<Socket> => networks.connect(this.docker, containerId, port);

  stats = (containerId: string): Promise<ContainerStats> => samples.stats(this.docker, containerId);
  streamStats = (containerId: string, onSample: (sample: ContainerStats) => void, signal: AbortSignal): Promise<void> =>
    samples.streamStats(this.docker, containerId, onSample, signal);
}
