import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Disposable } from '../../lifetime';
import {
  byPath,
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
  type ImageConfig,
  type ImageDetails,
  type ImageImportOptions,
  type ImageInfo,
  type PathChange,
  type PathStat,
  type ResourceLimits,
  type VolumeInfo,
} from '../container-engine';
import { checkLimits, MemoryContainer, type MemoryImage } from './memory-container';
import { EventHub, labelsMatch } from './memory-events';
import { ExecTable } from './memory-exec';
import { diffTrees, statOf, type DirNode } from './memory-fs';
import { ImageTable } from './memory-images';
import type { Program } from './memory-process';
import { APPLETS, BUILTIN_PROGRAMS, busyboxRoot } from './memory-programs';
import { archiveOf, exportOf, extractInto } from './memory-tar';
import { NetworkTable, VolumeTable } from './memory-volumes';

/**
 * A `ContainerEngine` in memory, faithful to what the Docker driver does
 * (the same contract tests run against both: engine-contract.ts), so the
 * services above the driver can be tested in milliseconds.
 *
 * What it models and what runs in it (programs written in TypeScript, a
 * busybox-like set and a subset of sh): docs/testing.md, "The in-memory
 * engine and the engine contract". A test registers its own programs with
 * `defineProgram`.
 *
 * What it does not model, so what stays an integration test: real
 * binaries and scripts beyond that subset (/proc, command substitution:
 * the exec process sweeper behind timeouts and Ctrl-C, the volume helpers'
 * copies, the exec relay's nc, consoles beyond a line-by-line sh), CPU and
 * pids limits, a storage quota, cgroup freezing of real work (a paused
 * container only holds its processes' output, exits and connections),
 * flow control of exec output, image pulls from a registry, bind mounts,
 * networks between containers, and stats beyond memory and pids.
 */
export class MemoryEngine implements ContainerEngine {
  readonly name = 'memory';
  readonly endpoint = { url: 'memory:', foundBy: 'in memory: a test engine' };
  readonly programs = new Map<string, Program>(Object.entries({ ...APPLETS, ...BUILTIN_PROGRAMS }));
  private readonly containers = new Map<string, MemoryContainer>();
  private readonly volumes = new VolumeTable(() => this.containers.values());
  private readonly networks = new NetworkTable(() => this.containers.values());
  private readonly events = new EventHub();
  private readonly execs = new ExecTable();
  private readonly images = new ImageTable((image) => [...this.containers.values()].some((c) => c.image === image));
  private reachable = true;

  constructor(private readonly options: { cpus?: number; memoryBytes?: number; statsIntervalMs?: number } = {}) {}

  /** Adds an image (a test's base): the busybox-like root unless a root is given. */
  addImage(ref: string, root: DirNode = busyboxRoot(), config: Partial<ImageConfig> = { cmd: ['/bin/sh'] }): string {
    return this.images.add(root, { ref, config }).id;
  }

  /** Registers a program that files can name (`programFile(name)`), beside the built-ins. */
  defineProgram(name: string, program: Program): void {
    this.programs.set(name, program);
  }

  /** Takes the engine away (every call fails as unreachable, event streams end) or brings it back. */
  setReachable(reachable: boolean): void {
    this.reachable = reachable;
    if (!reachable) this.events.endAll(new Error('the container engine went away'));
  }

  private get cpus(): number {
    return this.options.cpus ?? 2;
  }

  /** Kills and removes every container (their programs' timers and servers go with them): the end of a test. */
  async dispose(): Promise<void> {
    for (const id of [...this.containers.keys()]) await this.removeContainer(id);
  }

  private up(): void {
    if (!this.reachable) throw new EngineError('unavailable', 'cannot reach the container engine (ECONNREFUSED)');
  }

  /** One of the engine's tables, once the engine is reachable (as every call first checks). */
  private reached<T>(part: T): T {
    this.up();
    return part;
  }

  /** By id, unique id prefix, or name, as the engine finds containers. */
  private container(ref: string): MemoryContainer {
    this.up();
    const exact = this.containers.get(ref);
    if (exact) return exact;
    const all = [...this.containers.values()];
    const byName = all.find((c) => c.name === ref.replace(/^\//, ''));
    const byPrefix = all.filter((c) => c.id.startsWith(ref));
    const found = byName ?? (byPrefix.length === 1 ? byPrefix[0] : undefined);
    if (!found) throw new EngineError('not_found', `No such container: ${ref}`);
    return found;
  }

  private containerOrNull(ref: string): MemoryContainer | null {
    try {
      return this.container(ref);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  async ping(): Promise<void> {
    this.up();
  }

  async info(): Promise<EngineInfo> {
    this.up();
    return {
      name: this.name,
      version: '1.0.0',
      apiVersion: '1.41',
      storageLimit: false,
      cpus: this.cpus,
      memoryBytes: this.options.memoryBytes ?? 8 * 1024 ** 3,
    };
  }

  async inspectImage(ref: string): Promise<ImageDetails | null> {
    this.up();
    const image = this.images.find(ref);
    return image ? this.images.details(image) : null;
  }

  async pullImage(ref: string): Promise<void> {
    this.reached(this.images).pull(ref);
  }

  async listImages(labels: Record<string, string>): Promise<ImageInfo[]> {
    return this.reached(this.images).list(labels);
  }

  async removeImage(id: string): Promise<void> {
    this.reached(this.images).remove(id);
  }

  async importImage(tar: Readable, options: ImageImportOptions): Promise<string> {
    return this.reached(this.images).import(tar, options);
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    this.up();
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/.test(spec.name))
      throw new EngineError(
        'invalid',
        `Invalid container name (${spec.name}), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed`,
      );
    this.nameFree(spec.name, ' You have to remove (or rename) that container to be able to reuse that name.');
    const image = this.images.require(spec.image);
    checkLimits(spec.limits, this.cpus);
    if (spec.storageGb)
      throw new EngineError(
        'invalid',
        "--storage-opt is supported only for overlay over xfs with 'pquota' mount option",
      );
    const mounts = this.volumes.mountsFor(spec.mounts ?? []);
    const id = randomBytes(32).toString('hex');
    const container = new MemoryContainer(id, spec.name, spec, image, mounts, this.programs, this.events);
    if (spec.network) this.networks.connect(spec.network.name, container);
    this.containers.set(id, container);
    return id;
  }

  async startContainer(id: string): Promise<void> {
    const c = this.container(id);
    if (c.status === 'paused') throw new EngineError('failed', 'cannot start a paused container, try unpause instead');
    if (c.status === 'running') return;
    c.start();
  }

  async stopContainer(id: string, graceSeconds: number): Promise<void> {
    await this.container(id).stop(graceSeconds);
  }

  async pauseContainer(id: string): Promise<void> {
    const c = this.container(id);
    if (c.status === 'paused') throw new EngineError('conflict', `Container ${c.id} is already paused`);
    if (c.status !== 'running') throw new EngineError('conflict', `Container ${c.id} is not running`);
    c.pause();
  }

  async waitContainer(id: string): Promise<number> {
    return this.container(id).wait();
  }

  async unpauseContainer(id: string): Promise<void> {
    const c = this.container(id);
    if (c.status === 'paused') c.unpause();
  }

  async removeContainer(id: string): Promise<void> {
    const c = this.containerOrNull(id);
    if (!c) return;
    if (c.running) {
      c.kill();
      await c.wait();
    }
    c.destroy();
    this.containers.delete(c.id);
    this.execs.forget(c);
    this.events.emit(c, 'removed');
  }

  async inspectContainer(id: string): Promise<ContainerState | null> {
    this.up();
    return this.containerOrNull(id)?.state() ?? null;
  }

  async listContainers(labels: Record<string, string>): Promise<ContainerState[]> {
    this.up();
    return [...this.containers.values()]
      .filter((c) => labelsMatch(c.labels, labels))
      .map((c) => ({ ...c.state(), exitCode: null, oomKilled: false }));
  }

  async updateContainer(id: string, limits: ResourceLimits): Promise<void> {
    const c = this.container(id);
    checkLimits(limits, this.cpus);
    c.limits = { ...limits };
  }

  async renameContainer(id: string, name: string): Promise<void> {
    const c = this.container(id);
    this.nameFree(name, '', c);
    c.name = name;
  }

  /** A 409 as the engine's when another container has the name. */
  private nameFree(name: string, advice: string, self?: MemoryContainer): void {
    const taken = [...this.containers.values()].find((other) => other.name === name && other !== self);
    if (taken)
      throw new EngineError(
        'conflict',
        `Conflict. The container name "/${name}" is already in use by container "${taken.id}".${advice}`,
      );
  }

  async commitContainer(id: string, labels: Record<string, string>): Promise<string> {
    const c = this.container(id);
    // The engine pauses a running container for its commit.
    const pause = c.status === 'running';
    if (pause) this.events.emit(c, 'paused');
    const image: MemoryImage = this.images.commit(c, labels);
    if (pause) this.events.emit(c, 'unpaused');
    return image.id;
  }

  async exportContainer(id: string): Promise<Readable> {
    return exportOf(this.container(id).rootfs);
  }

  async logs(id: string, options: { tail?: number; follow: boolean }): Promise<Readable> {
    const c = this.container(id);
    return c.log.stream(options, c.running);
  }

  async watchEvents(
    labels: Record<string, string>,
    onEvent: (event: ContainerEvent) => void,
    onEnd: (err?: Error) => void,
  ): Promise<Disposable> {
    return this.reached(this.events).watch(labels, onEvent, onEnd);
  }

  async createExec(containerId: string, spec: ExecSpec): Promise<string> {
    return this.execs.create(this.container(containerId), spec);
  }

  async startExec(execId: string, options: { tty: boolean; stdin: boolean }): Promise<ExecStreams> {
    return this.reached(this.execs).start(execId, options);
  }

  async inspectExec(execId: string): Promise<ExecState> {
    return this.reached(this.execs).inspect(execId);
  }

  async resizeExec(execId: string): Promise<void> {
    this.reached(this.execs).resize(execId);
  }

  async getArchive(containerId: string, path: string): Promise<Readable> {
    const c = this.container(containerId);
    return archiveOf(c.fs, path, c.id);
  }

  async putArchive(containerId: string, dirPath: string, tar: Readable): Promise<void> {
    const c = this.container(containerId);
    await extractInto(c.fs, dirPath, tar, c.id);
  }

  async removePath(containerId: string, path: string): Promise<void> {
    const c = this.container(containerId);
    c.fs.removePath(path, c.id);
  }

  async statPath(containerId: string, path: string): Promise<PathStat | null> {
    const c = this.container(containerId);
    const { components, node } = c.fs.resolve(path, false);
    return node ? statOf(components.length ? components.at(-1)! : '/', node) : null;
  }

  async containerChanges(containerId: string): Promise<PathChange[]> {
    const c = this.container(containerId);
    return diffTrees(c.image.root, c.rootfs).sort(byPath);
  }

  async createVolume(name: string, labels: Record<string, string>): Promise<VolumeInfo> {
    const volume = this.reached(this.volumes).create(name, labels);
    return this.volumes.info(volume.name)!;
  }

  async removeVolume(name: string): Promise<void> {
    this.reached(this.volumes).remove(name);
  }

  async listVolumes(labels: Record<string, string>): Promise<VolumeInfo[]> {
    return this.reached(this.volumes).list(labels);
  }

  async inspectVolume(name: string): Promise<VolumeInfo | null> {
    return this.reached(this.volumes).info(name);
  }

  async ensureNetwork(name: string, labels: Record<string, string>): Promise<string> {
    return this.reached(this.networks).ensure(name, labels);
  }

  async removeNetwork(name: string): Promise<void> {
    this.reached(this.networks).remove(name);
  }

  async connectNetwork(network: string, containerId: string): Promise<void> {
    this.networks.connect(network, this.container(containerId));
  }

  async moveToNetwork(containerId: string, network: string): Promise<void> {
    this.networks.move(network, this.container(containerId));
  }

  async networkGateways(): Promise<string[]> {
    return [];
  }

  /** Its networks are names only: no addresses. */
  async networkSubnet(): Promise<null> {
    return null;
  }

  async pruneNetworks(labels: Record<string, string>, olderThanS?: number): Promise<void> {
    this.reached(this.networks).prune(labels, olderThanS);
  }

  /** Its containers share the host's sockets: there is no packet filter to set. */
  readonly packetFilter = false;

  async connect(containerId: string, port: number): Promise<Socket> {
    return this.container(containerId).dial(port);
  }

  async stats(containerId: string): Promise<ContainerStats> {
    return this.container(containerId).sample();
  }

  async streamStats(
    containerId: string,
    onSample: (sample: ContainerStats) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const c = this.container(containerId);
    while (!signal.aborted && c.running && this.containers.has(c.id)) {
      onSample(await this.stats(c.id));
      await sleep(this.options.statsIntervalMs ?? 1000, undefined, { signal }).catch(() => undefined);
    }
  }
}
