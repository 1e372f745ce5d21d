import { randomBytes } from 'node:crypto';
import { EngineError, type ContainerSpec, type VolumeInfo } from '../container-engine';
import type { MemoryContainer } from './memory-container';
import { labelsMatch } from './memory-events';
import { dir, joinPath, splitPath, type DirNode, type FsMount } from './memory-fs';

interface MemoryVolume {
  name: string;
  labels: Record<string, string>;
  root: DirNode;
}

/** Named volumes: a tree of files each, outliving the containers that mount it. */
export class VolumeTable {
  private readonly volumes = new Map<string, MemoryVolume>();

  constructor(private readonly containers: () => Iterable<MemoryContainer>) {}

  /** An existing volume of that name is kept as it is (its labels too). */
  create(name: string, labels: Record<string, string>): MemoryVolume {
    let volume = this.volumes.get(name);
    if (!volume) this.volumes.set(name, (volume = { name, labels: { ...labels }, root: dir() }));
    return volume;
  }

  /** A container's volume mounts; a volume that does not exist is made, empty and unlabelled, as the engine does. */
  mountsFor(mounts: NonNullable<ContainerSpec['mounts']>): FsMount[] {
    return mounts.map((m) => {
      if (!m.path.startsWith('/')) throw new EngineError('invalid', `invalid mount config: ${m.path} is not absolute`);
      const root = this.create(m.volume, {}).root;
      return { path: joinPath(splitPath(m.path)), root, readOnly: m.readOnly };
    });
  }

  info(name: string): VolumeInfo | null {
    const v = this.volumes.get(name);
    return v ? { name: v.name, labels: { ...v.labels } } : null;
  }

  list(labels: Record<string, string>): VolumeInfo[] {
    return [...this.volumes.values()].filter((v) => labelsMatch(v.labels, labels)).map((v) => this.info(v.name)!);
  }

  /** Refused while any container (running or not) mounts it; one that does not exist is fine. */
  remove(name: string): void {
    const volume = this.volumes.get(name);
    if (!volume) return;
    const users = [...this.containers()].filter((c) => c.fs.mounts.some((m) => m.root === volume.root));
    if (users.length)
      throw new EngineError('failed', `remove ${name}: volume is in use - [${users.map((c) => c.id).join(', ')}]`);
    this.volumes.delete(name);
  }
}

/** Networks: names and ids; containers remember which they joined. */
export class NetworkTable {
  private readonly networks = new Map<string, { id: string; labels: Record<string, string>; createdAt: number }>();

  constructor(private readonly containers: () => Iterable<MemoryContainer>) {}

  ensure(name: string, labels: Record<string, string>): string {
    let network = this.networks.get(name);
    if (!network)
      this.networks.set(
        name,
        (network = { id: randomBytes(32).toString('hex'), labels: { ...labels }, createdAt: Date.now() }),
      );
    return network.id;
  }

  remove(name: string): void {
    const network = this.networks.get(name);
    if (!network) return;
    if ([...this.containers()].some((c) => c.running && c.networks.has(name)))
      throw new EngineError(
        'failed',
        `error while removing network: network ${name} id ${network.id} has active endpoints`,
      );
    this.networks.delete(name);
  }

  /** Removes the networks with all these labels that no container is on (made over `olderThanS` ago, when given). */
  prune(labels: Record<string, string>, olderThanS = 0): void {
    const before = Date.now() - olderThanS * 1000;
    for (const [name, network] of this.networks) {
      const labelled = Object.entries(labels).every(([k, v]) => network.labels[k] === v);
      if (!labelled || (olderThanS && network.createdAt > before)) continue;
      if (![...this.containers()].some((c) => c.networks.has(name))) this.networks.delete(name);
    }
  }

  /** Connects the container to this network and takes it off every other. */
  move(name: string, container: MemoryContainer): void {
    this.connect(name, container);
    for (const other of [...container.networks]) if (other !== name) container.networks.delete(other);
  }

  connect(name: string, container: MemoryContainer): void {
    if (!this.networks.has(name)) throw new EngineError('not_found', `network ${name} not found`);
    container.networks.add(name);
  }
}
