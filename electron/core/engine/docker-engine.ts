import Docker from 'dockerode';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type { Disposable } from '../lifetime';
import './docker-modem-redirects';
import {
  EngineError,
  type ContainerEngine,
  type ContainerEvent,
  type ContainerSpec,
  type ContainerState,
  type EngineInfo,
  type ExecSpec,
  type ExecState,
  type ImageInfo,
  type ResourceLimits,
} from './container-engine';

interface DockerErrorLike {
  statusCode?: number;
  code?: string;
  message?: string;
  json?: { message?: string } | null;
}

/** Classifies a dockerode failure by the engine's own message, not by guessing from the status code. */
export function toEngineError(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const e = (err ?? {}) as DockerErrorLike;
  const message = (e.json?.message ?? e.message ?? String(err)).trim();
  if (e.code && ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EACCES', 'EHOSTUNREACH'].includes(e.code)) {
    return new EngineError('unavailable', `cannot reach the Docker engine (${e.code})`);
  }
  if (/timeout/i.test(message) && !e.statusCode) return new EngineError('unavailable', `the Docker engine did not answer in time`);
  if (/no such (container|image|exec)|not found/i.test(message)) return new EngineError('not_found', message);
  if (/conflict|already in use|is already/i.test(message)) return new EngineError('conflict', message);
  if (e.statusCode === 400 || /invalid|range of cpus|minimum memory/i.test(message)) return new EngineError('invalid', message);
  return new EngineError('failed', message);
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toEngineError(err);
  }
}

const NANO = 1_000_000_000;

export class DockerEngine implements ContainerEngine {
  readonly name = 'docker';
  private readonly docker: Docker;

  /** Honours DOCKER_HOST (and the TLS variables) like the docker CLI does. */
  constructor(options?: Docker.DockerOptions) {
    this.docker = new Docker(options);
  }

  async ping(timeoutMs = 2000): Promise<void> {
    await call(() =>
      Promise.race([
        this.docker.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new EngineError('unavailable', `the Docker engine did not answer within ${timeoutMs} ms`)), timeoutMs).unref()),
      ]),
    );
  }

  async info(): Promise<EngineInfo> {
    const [version, info] = await call(() => Promise.all([this.docker.version(), this.docker.info()]));
    const driverStatus: [string, string][] = info.DriverStatus ?? [];
    const backing = driverStatus.find(([k]) => k === 'Backing Filesystem')?.[1] ?? '';
    // overlay2 limits a container's root only on xfs with pquota; these drivers always can.
    const storageLimit = ['btrfs', 'zfs', 'devicemapper', 'windowsfilter'].includes(info.Driver) || (info.Driver === 'overlay2' && backing === 'xfs');
    return {
      name: 'docker',
      version: version.Version,
      apiVersion: version.ApiVersion,
      storageLimit,
      cpus: info.NCPU,
      memoryBytes: info.MemTotal,
    };
  }

  async inspectImage(ref: string): Promise<ImageInfo | null> {
    try {
      const image = await this.docker.getImage(ref).inspect();
      return { id: image.Id, sizeBytes: image.Size };
    } catch (err) {
      const e = toEngineError(err);
      if (e.kind === 'not_found') return null;
      throw e;
    }
  }

  async pullImage(ref: string, onProgress: (line: string) => void): Promise<void> {
    const stream = await call(() => this.docker.pull(ref) as Promise<Readable>);
    await new Promise<void>((resolve, reject) => {
      this.docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(toEngineError(err)) : resolve()),
        (event: { status?: string; id?: string; progress?: string; error?: string }) => {
          if (event.error) return;
          onProgress([event.id, event.status, event.progress].filter(Boolean).join(' '));
        },
      );
    });
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    const container = await call(() =>
      this.docker.createContainer({
        name: spec.name,
        Image: spec.image,
        Cmd: spec.command,
        Entrypoint: [],
        Hostname: spec.hostname,
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        Labels: spec.labels,
        StopSignal: 'SIGTERM',
        StopTimeout: spec.graceSeconds,
        Tty: false,
        OpenStdin: false,
        HostConfig: {
          Init: true,
          NanoCpus: spec.limits.cpus * NANO,
          Memory: spec.limits.ramMb * 1024 * 1024,
          MemorySwap: spec.limits.ramMb * 1024 * 1024,
          ...(spec.storageGb ? { StorageOpt: { size: `${spec.storageGb}G` } } : {}),
        },
      }),
    );
    return container.id;
  }

  async startContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).start();
    } catch (err) {
      // 304: already started
      if ((err as DockerErrorLike).statusCode === 304) return;
      throw toEngineError(err);
    }
  }

  async stopContainer(id: string, graceSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: graceSeconds });
    } catch (err) {
      if ((err as DockerErrorLike).statusCode === 304) return;
      throw toEngineError(err);
    }
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (err) {
      const e = toEngineError(err);
      if (e.kind === 'not_found' || /already in progress/.test(e.message)) return;
      throw e;
    }
  }

  async inspectContainer(id: string): Promise<ContainerState | null> {
    try {
      const c = await this.docker.getContainer(id).inspect();
      return { id: c.Id, running: c.State.Running, state: c.State.Status, exitCode: c.State.Running ? null : c.State.ExitCode, labels: c.Config.Labels ?? {} };
    } catch (err) {
      const e = toEngineError(err);
      if (e.kind === 'not_found') return null;
      throw e;
    }
  }

  async listContainers(labels: Record<string, string>): Promise<ContainerState[]> {
    const list = await call(() =>
      this.docker.listContainers({ all: true, filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }),
    );
    return list.map((c) => ({ id: c.Id, running: c.State === 'running', state: c.State, exitCode: null, labels: c.Labels ?? {} }));
  }

  async updateContainer(id: string, limits: ResourceLimits): Promise<void> {
    const bytes = limits.ramMb * 1024 * 1024;
    await call(() => this.docker.getContainer(id).update({ NanoCpus: limits.cpus * NANO, Memory: bytes, MemorySwap: bytes }));
  }

  async commitContainer(id: string, labels: Record<string, string>): Promise<string> {
    const result = (await call(() => this.docker.getContainer(id).commit({ pause: true, changes: Object.entries(labels).map(([k, v]) => `LABEL ${k}=${v}`) }))) as { Id: string };
    return result.Id;
  }

  async listImages(labels: Record<string, string>): Promise<ImageInfo[]> {
    const images = await call(() => this.docker.listImages({ filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }));
    return images.map((i) => ({ id: i.Id, sizeBytes: i.Size }));
  }

  async removeImage(id: string): Promise<void> {
    try {
      await this.docker.getImage(id).remove({ noprune: false });
    } catch (err) {
      const e = toEngineError(err);
      if (e.kind === 'not_found' || e.kind === 'conflict' || /being used|has dependent|unable to delete/i.test(e.message)) return;
      throw e;
    }
  }

  async logs(id: string, options: { tail?: number; follow: boolean }): Promise<Readable> {
    const container = this.docker.getContainer(id);
    const base = { stdout: true, stderr: true, ...(options.tail !== undefined ? { tail: options.tail } : {}) };
    const raw = options.follow
      ? await call(() => container.logs({ ...base, follow: true }))
      : await call(() => container.logs({ ...base, follow: false }));
    const out = new PassThrough();
    if (Buffer.isBuffer(raw)) {
      out.end(demuxBuffer(raw));
      return out;
    }
    this.docker.modem.demuxStream(raw, out, out);
    raw.on('end', () => out.end());
    raw.on('error', (err: Error) => out.destroy(err));
    out.on('close', () => (raw as Readable).destroy());
    return out;
  }

  async watchEvents(labels: Record<string, string>, onEvent: (event: ContainerEvent) => void, onEnd: (err?: Error) => void): Promise<Disposable> {
    const stream = (await call(() =>
      this.docker.getEvents({ filters: { type: ['container'], label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) } }),
    )) as Readable;
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!line) continue;
        try {
          const e = JSON.parse(line) as { id?: string; Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> } };
          onEvent({ id: e.Actor?.ID ?? e.id ?? '', action: e.Action ?? '', labels: e.Actor?.Attributes ?? {} });
        } catch {
          // a torn line from a dying stream; the next reconcile covers it
        }
      }
    });
    let ended = false;
    const end = (err?: Error) => {
      if (ended) return;
      ended = true;
      onEnd(err);
    };
    stream.on('end', () => end());
    stream.on('error', (err: Error) => end(err));
    stream.on('close', () => end());
    return {
      dispose: () => {
        ended = true;
        stream.destroy();
      },
    };
  }

  async createExec(containerId: string, spec: ExecSpec): Promise<string> {
    const exec = await call(() =>
      this.docker.getContainer(containerId).exec({
        Cmd: spec.command,
        Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
        WorkingDir: spec.cwd,
        Tty: spec.tty,
        AttachStdin: spec.stdin,
        AttachStdout: true,
        AttachStderr: true,
      }),
    );
    return exec.id;
  }

  async startExec(execId: string, options: { tty: boolean; stdin: boolean }): Promise<Duplex> {
    return call(() => this.docker.getExec(execId).start({ hijack: true, stdin: options.stdin, Tty: options.tty }) as Promise<Duplex>);
  }

  async inspectExec(execId: string): Promise<ExecState> {
    const info = await call(() => this.docker.getExec(execId).inspect());
    return { running: info.Running, exitCode: info.ExitCode ?? null, pid: info.Pid };
  }

  async resizeExec(execId: string, cols: number, rows: number): Promise<void> {
    await call(() => this.docker.getExec(execId).resize({ w: cols, h: rows }));
  }
}

/** Splits Docker's multiplexed log framing (8-byte headers) into plain bytes. */
export function demuxBuffer(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buf.length) {
    const size = buf.readUInt32BE(offset + 4);
    parts.push(buf.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return Buffer.concat(parts);
}
