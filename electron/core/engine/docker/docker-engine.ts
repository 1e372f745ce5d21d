import Docker from 'dockerode';
import { DEFAULT_BOX_LOG_LIMIT } from '../../config';
import './docker-modem-redirects';
import { EngineError, type ContainerEngine, type ContainerSpec, type EngineInfo } from '../container-engine';
import * as archive from './archive';
import * as builds from './build';
import * as containers from './containers';
import { discoverEngine } from '../discovery';
import { call } from './errors';
import { flavorOfVersion, type Flavor } from './flavor';
import * as events from './events';
import * as exec from './exec';
import * as images from './images';
import * as logStreams from './logs';
import * as networks from './networks';
import * as samples from './stats';
import * as volumes from './volumes';

/** The Docker Engine API through dockerode; each resource lives in its own file beside this one. */
export class DockerEngine implements ContainerEngine {
  /** "docker", or "podman" once the engine answered as Podman (flavor.ts). */
  name: Flavor = 'docker';
  readonly endpoint: { url: string; foundBy: string };
  private readonly docker: Docker;

  /** Podman's resolver (aardvark-dns) answers on the network's gateway; Docker's inside the box. */
  get resolverOnGateway(): boolean {
    return this.name === 'podman';
  }

  /** Docker moves a container from `none`, or a paused one, to a network; Podman 4 does neither (container-engine.ts). */
  get movesFrozenContainers(): boolean {
    return this.name === 'docker';
  }

  private readonly logLimitBytes: number;

  /**
   * Without options, the local engine as discoverEngine finds it (DOCKER_HOST and its TLS variables
   * as the docker CLI reads them, the Docker context, Docker's and Podman's sockets). `logLimitBytes`
   * bounds the output the engine keeps of each container it creates (default: the core's
   * `--box-log-limit` default). `endpoint`: what to say of where it is (an --engine's URL).
   */
  constructor(
    options?: Docker.DockerOptions,
    settings: { logLimitBytes?: number; endpoint?: { url: string; foundBy: string } } = {},
  ) {
    const found = options ? null : discoverEngine();
    this.endpoint =
      settings.endpoint ??
      (found
        ? { url: found.url, foundBy: found.foundBy }
        : {
            url: options?.socketPath
              ? `unix://${options.socketPath}`
              : `${options?.protocol ?? 'http'}://${options?.host}:${options?.port}`,
            foundBy: 'given to the core',
          });
    this.docker = new Docker(options ?? found?.options);
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
    this.name = flavorOfVersion(version);
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

  /** A resource file's function, with this engine's client as its first argument. */
  private withDocker<A extends unknown[], R>(f: (docker: Docker, ...args: A) => R): (...args: A) => R {
    return (...args) => f(this.docker, ...args);
  }

  inspectImage = this.withDocker(images.inspectImage);
  pullImage = this.withDocker(images.pullImage);
  saveImage = this.withDocker(images.saveImage);
  loadImage = this.withDocker(images.loadImage);
  listImages = this.withDocker(images.listImages);
  removeImage = this.withDocker(images.removeImage);
  importImage = this.withDocker(images.importImage);
  buildImage = this.withDocker(builds.buildImage);

  createContainer = (spec: ContainerSpec): Promise<string> =>
    containers.createContainer(this.docker, spec, this.logLimitBytes);
  startContainer = this.withDocker(containers.startContainer);
  stopContainer = this.withDocker(containers.stopContainer);
  pauseContainer = this.withDocker(containers.pauseContainer);
  waitContainer = this.withDocker(containers.waitContainer);
  unpauseContainer = this.withDocker(containers.unpauseContainer);
  removeContainer = this.withDocker(containers.removeContainer);
  inspectContainer = this.withDocker(containers.inspectContainer);
  listContainers = this.withDocker(containers.listContainers);
  updateContainer = this.withDocker(containers.updateContainer);
  renameContainer = this.withDocker(containers.renameContainer);
  commitContainer = this.withDocker(containers.commitContainer);
  exportContainer = this.withDocker(containers.exportContainer);
  logs = this.withDocker(logStreams.logs);
  watchEvents = this.withDocker(events.watchEvents);

  createExec = this.withDocker(exec.createExec);
  startExec = this.withDocker(exec.startExec);
  inspectExec = this.withDocker(exec.inspectExec);
  resizeExec = this.withDocker(exec.resizeExec);

  getArchive = this.withDocker(archive.getArchive);
  putArchive = this.withDocker(archive.putArchive);
  removePath = this.withDocker(archive.removePath);
  renamePath = this.withDocker(archive.renamePath);
  statPath = this.withDocker(archive.statPath);
  containerChanges = this.withDocker(archive.containerChanges);

  createVolume = this.withDocker(volumes.createVolume);
  removeVolume = this.withDocker(volumes.removeVolume);
  listVolumes = this.withDocker(volumes.listVolumes);
  inspectVolume = this.withDocker(volumes.inspectVolume);

  ensureNetwork = this.withDocker(networks.ensureNetwork);
  removeNetwork = this.withDocker(networks.removeNetwork);
  connectNetwork = this.withDocker(networks.connectNetwork);
  moveToNetwork = this.withDocker(networks.moveToNetwork);
  networkGateways = this.withDocker(networks.networkGateways);
  networkSubnet = this.withDocker(networks.networkSubnet);
  pruneNetworks = this.withDocker(networks.pruneNetworks);
  readonly packetFilter = true;
  connect = this.withDocker(networks.connect);

  stats = this.withDocker(samples.stats);
  streamStats = this.withDocker(samples.streamStats);
}
