import type { Duplex, Readable, Writable } from 'node:stream';
import type { Disposable } from '../lifetime';
import type { BuildLine, BuildOptions, ImageDetails, ImageImportOptions, ImageInfo } from './image-types';

/**
 * What the core needs from a container runtime. Docker implements it today
 * (engine/docker/); nothing above this interface names the runtime, knows
 * its stream framing, its event names or its id formats.
 */
export interface ContainerEngine {
  /** The engine's name as the driver reports it; user-facing hints may use it. */
  readonly name: string;
  /** Where the engine is, and how the core found it (engine/discovery.ts). */
  readonly endpoint: { url: string; foundBy: string };
  /**
   * True where a box on a project network asks for names on its network's gateway, port 53
   * (Podman's aardvark-dns); else the engine's resolver answers inside the box (Docker's 127.0.0.11).
   */
  readonly resolverOnGateway?: boolean;
  /**
   * True where `moveToNetwork` also moves a container made on the network `none` (it then resolves
   * names there) and a paused one, whose limits and name can change as well (Docker). Podman 4
   * refuses the first, and answers the second without moving it.
   */
  readonly movesFrozenContainers?: boolean;
  ping(timeoutMs?: number): Promise<void>;
  info(): Promise<EngineInfo>;

  inspectImage(ref: string): Promise<ImageDetails | null>;
  pullImage(ref: string, onProgress: (line: string) => void): Promise<void>;
  /** Images carrying all these labels. */
  listImages(labels: Record<string, string>): Promise<ImageInfo[]>;
  /** Removes an image; one still used by a container or by another image's chain is kept. */
  removeImage(id: string): Promise<void>;
  /** The image as an archive another engine of the same kind loads (regions copy bases this way). Optional. */
  saveImage?(id: string): Promise<Readable>;
  /** Loads an archive from saveImage; the image keeps its id. Optional, with saveImage. */
  loadImage?(tar: Readable): Promise<void>;
  /** Makes a single-layer image from a root filesystem tar stream; returns the image id. */
  importImage(tar: Readable, options: ImageImportOptions): Promise<string>;
  /**
   * Builds an image from a Dockerfile and its context (a tar stream) with the engine's own builder
   * and its cache; `onLine` gets the output as it comes. Returns the image id. Optional: an engine
   * without a builder leaves it out and builds are refused.
   */
  buildImage?(
    context: Readable,
    options: BuildOptions,
    onLine: (line: BuildLine) => void,
    signal: AbortSignal,
  ): Promise<string>;

  /** Every container it creates (boxes, service boxes, helpers) has its log bounded by the driver's setting. */
  createContainer(spec: ContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string, graceSeconds: number): Promise<void>;
  /** Freezes every process of a running container (a consistent copy of what it writes). */
  pauseContainer(id: string): Promise<void>;
  /** Waits until the container's main process exits; returns its exit code. */
  waitContainer(id: string): Promise<number>;
  /** Thaws a container frozen by a pause (one that is not paused is not an error). */
  unpauseContainer(id: string): Promise<void>;
  /** Kills and removes a container, whatever it is doing; one that does not exist is not an error. */
  removeContainer(id: string): Promise<void>;
  inspectContainer(id: string): Promise<ContainerState | null>;
  listContainers(labels: Record<string, string>): Promise<ContainerState[]>;
  updateContainer(id: string, limits: ResourceLimits): Promise<void>;
  /** Gives the container another name (a warm-pool container becomes a box's). */
  renameContainer(id: string, name: string): Promise<void>;
  /** Commits the container's writable layer to a new image; returns the image id. */
  commitContainer(id: string, labels: Record<string, string>): Promise<string>;
  /** The container's whole filesystem (its image and writable layer, flattened) as a tar stream. */
  exportContainer(id: string): Promise<Readable>;
  /**
   * The main process's output, stdout and stderr interleaved, as plain bytes, streamed as it is read
   * (never collected whole: a box may have written gigabytes). What the engine keeps of it is bounded
   * (the driver rotates every container's log).
   */
  logs(id: string, options: { tail?: number; follow: boolean }): Promise<Readable>;
  /** Domain events of the containers carrying all these labels, until disposed or the engine goes. */
  watchEvents(
    labels: Record<string, string>,
    onEvent: (event: ContainerEvent) => void,
    onEnd: (err?: Error) => void,
  ): Promise<Disposable>;

  createExec(containerId: string, spec: ExecSpec): Promise<string>;
  /** Starts an exec and hands up its output already split into stdout and stderr (with a tty, all of it on stdout). */
  startExec(execId: string, options: { tty: boolean; stdin: boolean }): Promise<ExecStreams>;
  inspectExec(execId: string): Promise<ExecState>;
  resizeExec(execId: string, cols: number, rows: number): Promise<void>;

  /** A tar stream of `path` (file or directory) in the container; works on stopped containers too. */
  getArchive(containerId: string, path: string): Promise<Readable>;
  /**
   * Extracts a tar stream into the existing directory `dirPath`; works on stopped containers too.
   * An entry never replaces a directory with a non-directory or the reverse (that is an `invalid` error).
   * Entries are written in place, not atomically: a stream that fails midway leaves what was written.
   */
  putArchive(containerId: string, dirPath: string, tar: Readable): Promise<void>;
  /**
   * A regular file's bytes straight from the container (`path`'s parents' symlinks resolved in it,
   * `path` itself not followed), or null where this engine cannot for this container: the caller
   * reads `getArchive` instead. Optional (the box agent's content call; docs/protocol.md).
   */
  readFile?(containerId: string, path: string): Promise<{ size: number; stream: Readable } | null>;
  /**
   * Creates the file `path` (nothing may be there; its directory must exist) from exactly `size`
   * bytes of `body`, with `mode` and the owner root; false where this engine cannot for this
   * container, `body` untouched: the caller writes it with `putArchive` instead. Optional.
   */
  writeFile?(containerId: string, path: string, mode: number, size: number, body: Readable): Promise<boolean>;
  /** Removes `path` (recursively, a symlink itself rather than its target); works on stopped containers too. */
  removePath(containerId: string, path: string): Promise<void>;
  /**
   * Replaces `to` with the file at `from` (both in one directory) in one step, so nobody sees
   * `to` half written; `from` is gone afterwards. Works on stopped containers too. Optional: without
   * it the core makes a hard link with `putArchive` and then removes `from`. `mode` is the file's own
   * (a link entry's mode would otherwise be applied to the file).
   */
  renamePath?(containerId: string, from: string, to: string, mode: number): Promise<void>;
  /** What is at `path` in the container, or null when nothing is. */
  statPath(containerId: string, path: string): Promise<PathStat | null>;
  /** Paths of the container's root that differ from its image, in path order. */
  containerChanges(containerId: string): Promise<PathChange[]>;

  /** Creates a named volume (an existing one of that name is kept as it is). */
  createVolume(name: string, labels: Record<string, string>, options?: VolumeOptions): Promise<VolumeInfo>;
  /** Removes a volume; one that does not exist is not an error. */
  removeVolume(name: string): Promise<void>;
  /** Volumes carrying all these labels. */
  listVolumes(labels: Record<string, string>): Promise<VolumeInfo[]>;
  inspectVolume(name: string): Promise<VolumeInfo | null>;

  /**
   * Creates the network unless one of that name exists; returns its id. With `pool` (an IPv4
   * CIDR), a new network takes the first free /24 of it (`networkSubnet` says which).
   */
  ensureNetwork(name: string, labels: Record<string, string>, options?: { pool?: string }): Promise<string>;
  /** The network's IPv4 subnet and gateway, or null (no such network, or the engine has none). */
  networkSubnet(name: string): Promise<{ subnet: string; gateway: string } | null>;
  /** Removes a network; one that does not exist is not an error. */
  removeNetwork(name: string): Promise<void>;
  /** Connects a container to a network (already connected is not an error). */
  connectNetwork(network: string, containerId: string): Promise<void>;
  /**
   * Leaves the container on `network` alone, reached there by `aliases` as well as its name: connects
   * it (running or not) and disconnects it from every other network. Already so is not an error.
   */
  moveToNetwork(containerId: string, network: string, aliases: string[]): Promise<void>;
  /**
   * The IPv4 gateways of every network the engine has: the host's own addresses on its bridges,
   * known from the moment a network is made (the host has the address only once a container joins).
   */
  networkGateways(): Promise<string[]>;
  /** Removes the networks carrying all these labels that no container (running or not) is on, made before `olderThanS` seconds ago. */
  pruneNetworks(labels: Record<string, string>, olderThanS?: number): Promise<void>;
  /**
   * Whether a helper container can join another container's network namespace and set its packet
   * filter (`HelperPrivileges.networkOf`); an engine without real networking cannot.
   */
  readonly packetFilter: boolean;

  /**
   * A connection from the core to `port` inside the running container: a TCP connection where
   * the container's address is reachable from the core's host, else one relayed through the engine.
   */
  connect(containerId: string, port: number): Promise<BoxSocket>;

  /** One resource sample of a running container. */
  stats(containerId: string): Promise<ContainerStats>;
  /** Calls `onSample` about once a second until `signal` aborts or the container stops. */
  streamStats(containerId: string, onSample: (sample: ContainerStats) => void, signal: AbortSignal): Promise<void>;
}

export interface EngineInfo {
  name: string;
  version: string;
  apiVersion: string;
  /** Whether a per-container root filesystem size limit can be enforced. */
  storageLimit: boolean;
  cpus: number;
  memoryBytes: number;
}

export type { BuildLine, BuildOptions, ImageConfig, ImageDetails, ImageImportOptions, ImageInfo } from './image-types';

export interface ResourceLimits {
  cpus: number;
  ramMb: number;
  /** Most processes and threads at once. */
  pidsLimit: number;
}

export interface ContainerSpec {
  name: string;
  image: string;
  command: string[];
  hostname: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  limits: ResourceLimits;
  storageGb: number | null;
  graceSeconds: number;
  /** Named volumes mounted into the container. */
  mounts?: VolumeMount[];
  /** Where its processes start (exec, console) unless they say otherwise; else the image's. */
  workingDir?: string;
  /** No network at all, loopback only: Boxdesk's own helpers, which need none (and start faster without). */
  offline?: boolean;
  /** The network it is created on, reached there by `aliases` as well as its name; else the engine's default. */
  network?: { name: string; aliases: string[] };
  /** Only Boxdesk's own privileged helpers (the copy-on-write store's, the packet filter's) have these; boxes never do. */
  helper?: HelperPrivileges;
  /** Boxdesk's box agent runs the command (agent/, docs/protocol.md): its binary and the box's host directory. */
  agent?: BoxAgentMounts;
}

/** Where the box agent comes from on the engine's host: mounted at AGENT_BINARY_PATH (read-only) and AGENT_RUN_DIR. */
export interface BoxAgentMounts {
  binary: string;
  runDir: string;
}

export const AGENT_BINARY_PATH = '/.boxdesk/agent';
export const AGENT_RUN_DIR = '/.boxdesk/run';

/** What a helper container needs beyond the engine's defaults (docs/security.md). */
export interface HelperPrivileges {
  /** Capabilities added to the engine's default set, e.g. SYS_ADMIN. */
  capAdd: string[];
  /** Host devices given to the container read-write, e.g. /dev/loop-control. */
  devices: string[];
  /** Host directories mounted into the container. */
  binds: { hostPath: string; path: string; readOnly: boolean }[];
  /** Joins this container's network namespace instead (to set its packet filter); no hostname of its own. */
  networkOf?: string;
  /** Without the engine's AppArmor profile, which forbids mount(2), where the host has one. */
  noAppArmor: boolean;
  /** In the host's PID namespace (the packet filter's helper finds a box's network namespace by its process). */
  pidHost?: boolean;
}

export interface VolumeOptions {
  /** Options of the engine's local volume driver (type, device, o), as `mount -t TYPE -o O DEVICE` takes them. */
  driverOptions: Record<string, string>;
}

export interface VolumeMount {
  /** The engine volume's name. */
  volume: string;
  /** Absolute path in the container. */
  path: string;
  readOnly: boolean;
}

export interface ContainerState {
  id: string;
  running: boolean;
  /** created | running | paused | restarting | removing | exited | dead */
  state: string;
  exitCode: number | null;
  /** The kernel killed a process of the container for memory (since it last started). */
  oomKilled: boolean;
  labels: Record<string, string>;
  /** The main process's id on the engine's host while it runs (0: not running, or not known). */
  pid?: number;
  /** Its IPv4 addresses on the engine's networks while it runs (none where the engine has no addresses). */
  addresses?: string[];
}

export type ContainerEventKind = 'started' | 'exited' | 'oom' | 'removed' | 'paused' | 'unpaused';

/** Something happened to a container. An exit may be reported more than once (the process died, then the stop finished). */
export interface ContainerEvent {
  containerId: string;
  labels: Record<string, string>;
  kind: ContainerEventKind;
  /** With `exited`, when the engine says. */
  exitCode?: number;
  /** With `exited` or `oom`: the kernel killed it for memory. */
  oom?: boolean;
}

export interface ExecSpec {
  command: string[];
  env: Record<string, string>;
  cwd?: string;
  tty: boolean;
  stdin: boolean;
}

/** A running exec's streams. Pausing stdout or stderr pauses the process's output at the engine. */
export interface ExecStreams {
  stdout: Readable;
  /** Empty with a tty: the terminal merges everything onto stdout. */
  stderr: Readable;
  /** null unless started with stdin; end() sends EOF. */
  stdin: Writable | null;
  /** Drops the connection to the exec (the process itself keeps running). */
  close(): void;
}

/** A connection into a box: a TCP socket, or a relay carried by an exec (engine/exec-socket.ts). */
export type BoxSocket = Duplex & {
  setNoDelay(noDelay?: boolean): unknown;
  setKeepAlive(enable?: boolean, initialDelay?: number): unknown;
  setTimeout(ms: number, callback?: () => void): unknown;
};

export interface ExecState {
  running: boolean;
  exitCode: number | null;
  pid: number;
}

export type PathType = 'file' | 'directory' | 'symlink' | 'other';

export interface PathStat {
  name: string;
  size: number;
  type: PathType;
  /** Permission bits (0o777 plus setuid/setgid/sticky). */
  mode: number;
  /** ISO 8601 */
  mtime: string;
  /** The target, for a symlink. */
  linkTarget: string | null;
}

/** Orders changes by path (code unit order, as `sort()` orders strings). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export interface PathChange {
  path: string;
  kind: 'added' | 'changed' | 'deleted';
}

export interface VolumeInfo {
  name: string;
  labels: Record<string, string>;
  /** Where the engine keeps it on its host, when it says. */
  mountpoint?: string;
  /** The local driver's options it was created with (none for a plain volume). */
  driverOptions?: Record<string, string>;
}

export interface ContainerStats {
  /** Percent of one CPU (200 = two CPUs busy). */
  cpu_percent: number;
  /** In use, without reclaimable page cache. */
  memory_bytes: number;
  memory_limit_bytes: number;
  pids: number;
  net_rx_bytes: number;
  net_tx_bytes: number;
  block_read_bytes: number;
  block_write_bytes: number;
  /** ISO 8601 */
  at: string;
}

export type EngineErrorKind = 'unavailable' | 'not_found' | 'conflict' | 'invalid' | 'failed';

/** An engine failure, classified by the engine's own message. */
export class EngineError extends Error {
  readonly kind: EngineErrorKind;
  constructor(kind: EngineErrorKind, message: string) {
    super(message);
    this.name = 'EngineError';
    this.kind = kind;
  }
}
