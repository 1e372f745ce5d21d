import type { Duplex, Readable } from 'node:stream';
import type { Disposable } from '../lifetime';

/**
 * What the core needs from a container runtime. Docker implements it today;
 * nothing above this interface names the runtime.
 */
export interface ContainerEngine {
  readonly name: string;
  ping(timeoutMs?: number): Promise<void>;
  info(): Promise<EngineInfo>;

  inspectImage(ref: string): Promise<ImageInfo | null>;
  pullImage(ref: string, onProgress: (line: string) => void): Promise<void>;

  createContainer(spec: ContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string, graceSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  inspectContainer(id: string): Promise<ContainerState | null>;
  listContainers(labels: Record<string, string>): Promise<ContainerState[]>;
  updateContainer(id: string, limits: ResourceLimits): Promise<void>;
  /** Commits the container's writable layer to a new image; returns the image id. */
  commitContainer(id: string, labels: Record<string, string>): Promise<string>;
  /** Images carrying all these labels. */
  listImages(labels: Record<string, string>): Promise<ImageInfo[]>;
  /** Removes an image; one still used by a container or by another image's chain is kept. */
  removeImage(id: string): Promise<void>;
  logs(id: string, options: { tail?: number; follow: boolean }): Promise<Readable>;
  watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void, onEnd: (err?: Error) => void): Promise<Disposable>;

  createExec(containerId: string, spec: ExecSpec): Promise<string>;
  startExec(execId: string, options: { tty: boolean; stdin: boolean }): Promise<Duplex>;
  inspectExec(execId: string): Promise<ExecState>;
  resizeExec(execId: string, cols: number, rows: number): Promise<void>;
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

export interface ImageInfo {
  id: string;
  sizeBytes: number;
}

export interface ResourceLimits {
  cpus: number;
  ramMb: number;
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
}

export interface ContainerState {
  id: string;
  running: boolean;
  /** created | running | paused | restarting | removing | exited | dead */
  state: string;
  exitCode: number | null;
  labels: Record<string, string>;
}

export interface ContainerEvent {
  id: string;
  action: string;
  labels: Record<string, string>;
}

export interface ExecSpec {
  command: string[];
  env: Record<string, string>;
  cwd?: string;
  tty: boolean;
  stdin: boolean;
}

export interface ExecState {
  running: boolean;
  exitCode: number | null;
  pid: number;
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
