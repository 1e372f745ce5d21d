import type { FastifyBaseLogger } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import type { Disposable } from '../../lifetime';
import { EngineError, type ContainerEngine, type ContainerSpec, type ImageInfo } from '../container-engine';
import { REGION_LABEL, RegionUnavailableError, type Region, type Regions } from './regions';

/** Exec ids of another region than the first carry it: `region:<name>:<the engine's id>`. */
const EXEC_PREFIX = 'region:';

type Routed = Omit<ContainerEngine, 'name' | 'endpoint' | 'packetFilter'>;

/**
 * One ContainerEngine over several (SPEC "Engines and regions"): a container, its execs and its
 * files go to the region that holds it; a new box container or data volume goes to the region
 * its labels name (`boxdesk.region`, else the first); lists are the union of the regions that are
 * up. A helper that joins a container's network namespace goes to that container's region. A
 * call that needs a region whose engine is away fails at once with a 503 naming it, and tells
 * that region's monitor, which brings it back by itself. With one region it is that region's
 * engine, unchanged.
 */
export function regionalEngine(regions: Regions, log?: FastifyBaseLogger): ContainerEngine {
  if (regions.all.length === 1) return regions.first.engine;
  const router = new RegionRouter(regions, log);
  const first = regions.first.engine;
  return new Proxy(first, {
    get(target, prop) {
      if (prop === 'name' || prop === 'endpoint' || prop === 'packetFilter') return target[prop];
      if (prop === 'buildImage' && !target.buildImage) return undefined;
      const own = (router.calls as unknown as Record<PropertyKey, unknown>)[prop];
      return own ?? Reflect.get(target, prop);
    },
  });
}

class RegionRouter {
  private readonly containers = new Map<string, Region>();
  private readonly volumes = new Map<string, Region>();
  /** ensureNetwork's arguments, to make the network in another region when a box there joins it. */
  private readonly networks = new Map<string, Parameters<ContainerEngine['ensureNetwork']>>();
  /** Images being copied into a region (`region image`): two creates there wait for one copy. */
  private readonly copies = new Map<string, Promise<void>>();

  constructor(
    private readonly regions: Regions,
    private readonly log?: FastifyBaseLogger,
  ) {}

  private up(region: Region): Region {
    if (region !== this.regions.first && !region.monitor.current.up)
      throw new RegionUnavailableError(region.name, region.monitor.current.reason ?? 'not up');
    return region;
  }

  private upRegions(): Region[] {
    return this.regions.all.filter((r) => r === this.regions.first || r.monitor.current.up);
  }

  /** Runs `f` on a region; its engine failing as unreachable marks the region down and names it. */
  private async on<T>(region: Region, f: (engine: ContainerEngine) => Promise<T>): Promise<T> {
    this.up(region);
    try {
      return await f(region.engine);
    } catch (err) {
      if (region === this.regions.first || !(err instanceof EngineError) || err.kind !== 'unavailable') throw err;
      region.monitor.reportDown(err.message);
      throw new RegionUnavailableError(region.name, err.message);
    }
  }

  private regionOfLabels(labels: Record<string, string>): Region {
    const name = labels[REGION_LABEL];
    const region = name ? this.regions.find(name) : this.regions.first;
    if (!region) throw new EngineError('invalid', `region "${name}" is not one of this core's`);
    return region;
  }

  /** The region holding a container: known from its create, else asked of each region. */
  private async containerRegion(id: string): Promise<Region> {
    const known = this.containers.get(id);
    if (known) return known;
    for (const region of this.regions.all) {
      if (region !== this.regions.first && !region.monitor.current.up) continue;
      if (await region.engine.inspectContainer(id).catch(() => null)) {
        this.containers.set(id, region);
        return region;
      }
    }
    const away = this.regions.all.find((r) => !r.monitor.current.up);
    // Not found where we could look: it may be in a region that is away; never "gone" for that.
    if (away) throw new RegionUnavailableError(away.name, away.monitor.current.reason ?? 'not up');
    return this.regions.first;
  }

  private async volumeRegion(name: string): Promise<Region> {
    const known = this.volumes.get(name);
    if (known) return known;
    for (const region of this.upRegions()) {
      if (await region.engine.inspectVolume(name).catch(() => null)) {
        this.volumes.set(name, region);
        return region;
      }
    }
    return this.regions.first;
  }

  private byContainer<A extends unknown[], R>(
    f: (engine: ContainerEngine, id: string, ...args: A) => Promise<R>,
  ): (id: string, ...args: A) => Promise<R> {
    return async (id, ...args) => this.on(await this.containerRegion(id), (e) => f(e, id, ...args));
  }

  private byExec<A extends unknown[], R>(
    f: (engine: ContainerEngine, execId: string, ...args: A) => Promise<R>,
  ): (execId: string, ...args: A) => Promise<R> {
    return async (execId, ...args) => {
      if (!execId.startsWith(EXEC_PREFIX)) return f(this.regions.first.engine, execId, ...args);
      const rest = execId.slice(EXEC_PREFIX.length);
      const name = rest.slice(0, rest.indexOf(':'));
      const region = this.regions.find(name);
      if (!region) throw new EngineError('not_found', `no such exec: ${execId}`);
      return this.on(region, (e) => f(e, rest.slice(name.length + 1), ...args));
    };
  }

  private async union<T>(f: (engine: ContainerEngine, region: Region) => Promise<T[]>): Promise<T[]> {
    const lists = await Promise.all(this.upRegions().map((r) => this.on(r, (e) => f(e, r))));
    return lists.flat();
  }

  /**
   * The image of a new container in its region: copied from the first region where it is missing
   * (an engine's save, then a load in the region's, through the Engine API), once; it stays there
   * for the next container.
   */
  private async ensureImage(region: Region, image: string): Promise<void> {
    if (region === this.regions.first || (await region.engine.inspectImage(image))) return;
    const key = `${region.name} ${image}`;
    let copy = this.copies.get(key);
    if (!copy) {
      copy = this.copyImage(region, image).finally(() => this.copies.delete(key));
      this.copies.set(key, copy);
    }
    await copy;
  }

  private async copyImage(region: Region, image: string): Promise<void> {
    const source = this.regions.first.engine;
    if (!source.saveImage || !region.engine.loadImage || !(await source.inspectImage(image)))
      throw new EngineError(
        'not_found',
        `the image ${image} is not in region "${region.name}"; pull or load it there (the first region could not copy it)`,
      );
    const began = Date.now();
    this.log?.info({ region: region.name, image }, 'copying an image to the region that lacks it');
    // Counted as it passes, for the log: the archive is streamed, never held whole.
    let bytes = 0;
    let told = 0;
    const counted = new PassThrough();
    counted.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes - told < 64 * 1024 * 1024) return;
      told = bytes;
      this.log?.info({ region: region.name, image, mb: Math.round(bytes / 1048576) }, 'copying the image');
    });
    const archive = await source.saveImage(image);
    archive.on('error', (err) => counted.destroy(err));
    await region.engine.loadImage(archive.pipe(counted));
    const mb = Math.round(bytes / 104857.6) / 10;
    this.log?.info({ region: region.name, image, mb, ms: Date.now() - began }, 'image copied to the region');
  }

  private async ensureNetworkIn(region: Region, name: string): Promise<void> {
    const args = this.networks.get(name);
    if (region !== this.regions.first && args) await region.engine.ensureNetwork(...args);
  }

  readonly calls: Routed = {
    ping: (ms) => this.regions.first.engine.ping(ms),
    info: () => this.regions.first.engine.info(),
    inspectImage: async (ref) => {
      for (const region of this.upRegions()) {
        const found = await this.on(region, (e) => e.inspectImage(ref));
        if (found) return found;
      }
      return null;
    },
    pullImage: (ref, onProgress) => this.regions.first.engine.pullImage(ref, onProgress),
    listImages: async (labels) => {
      const seen = new Map<string, ImageInfo>();
      for (const image of await this.union((e) => e.listImages(labels))) seen.set(image.id, image);
      return [...seen.values()];
    },
    removeImage: async (id) => {
      for (const region of this.upRegions()) await this.on(region, (e) => e.removeImage(id));
    },
    importImage: (tar, options) => this.regions.first.engine.importImage(tar, options),
    createContainer: async (spec: ContainerSpec) => {
      const joins = spec.helper?.networkOf;
      const region = joins ? await this.containerRegion(joins) : this.regionOfLabels(spec.labels);
      const id = await this.on(region, async (e) => {
        await this.ensureImage(region, spec.image);
        if (spec.network) await this.ensureNetworkIn(region, spec.network.name);
        return e.createContainer(spec);
      });
      this.containers.set(id, region);
      return id;
    },
    startContainer: this.byContainer((e, id) => e.startContainer(id)),
    stopContainer: this.byContainer((e, id, grace: number) => e.stopContainer(id, grace)),
    pauseContainer: this.byContainer((e, id) => e.pauseContainer(id)),
    waitContainer: this.byContainer((e, id) => e.waitContainer(id)),
    unpauseContainer: this.byContainer((e, id) => e.unpauseContainer(id)),
    removeContainer: async (id) => {
      await this.on(await this.containerRegion(id), (e) => e.removeContainer(id));
      this.containers.delete(id);
    },
    inspectContainer: this.byContainer((e, id) => e.inspectContainer(id)),
    listContainers: (labels) =>
      this.union(async (e, region) => {
        const list = await e.listContainers(labels);
        for (const c of list) this.containers.set(c.id, region);
        return list;
      }),
    updateContainer: this.byContainer((e, id, limits: Parameters<ContainerEngine['updateContainer']>[1]) =>
      e.updateContainer(id, limits),
    ),
    renameContainer: this.byContainer((e, id, name: string) => e.renameContainer(id, name)),
    commitContainer: this.byContainer((e, id, labels: Record<string, string>) => e.commitContainer(id, labels)),
    exportContainer: this.byContainer((e, id) => e.exportContainer(id)),
    logs: this.byContainer((e, id, options: { tail?: number; follow: boolean }) => e.logs(id, options)),
    watchEvents: (labels, onEvent, onEnd) => this.watchEvents(labels, onEvent, onEnd),
    createExec: async (containerId, spec) => {
      const region = await this.containerRegion(containerId);
      const id = await this.on(region, (e) => e.createExec(containerId, spec));
      return region === this.regions.first ? id : `${EXEC_PREFIX}${region.name}:${id}`;
    },
    startExec: this.byExec((e, id, options: { tty: boolean; stdin: boolean }) => e.startExec(id, options)),
    inspectExec: this.byExec((e, id) => e.inspectExec(id)),
    resizeExec: this.byExec((e, id, cols: number, rows: number) => e.resizeExec(id, cols, rows)),
    getArchive: this.byContainer((e, id, path: string) => e.getArchive(id, path)),
    putArchive: this.byContainer((e, id, dir: string, tar: Readable) => e.putArchive(id, dir, tar)),
    readFile: this.byContainer(async (e, id, path: string) => (e.readFile ? e.readFile(id, path) : null)),
    writeFile: this.byContainer(async (e, id, path: string, mode: number, size: number, body: Readable) =>
      e.writeFile ? e.writeFile(id, path, mode, size, body) : false,
    ),
    removePath: this.byContainer((e, id, path: string) => e.removePath(id, path)),
    renamePath: this.byContainer(async (e, id, from: string, to: string, mode: number) => {
      if (!e.renamePath) throw new EngineError('invalid', 'this engine cannot rename a path in one step');
      await e.renamePath(id, from, to, mode);
    }),
    statPath: this.byContainer((e, id, path: string) => e.statPath(id, path)),
    containerChanges: this.byContainer((e, id) => e.containerChanges(id)),
    createVolume: async (name, labels, options) => {
      const region = this.regionOfLabels(labels);
      const volume = await this.on(region, (e) => e.createVolume(name, labels, options));
      this.volumes.set(name, region);
      return volume;
    },
    removeVolume: async (name) => {
      await this.on(await this.volumeRegion(name), (e) => e.removeVolume(name));
      this.volumes.delete(name);
    },
    listVolumes: (labels) => this.union((e) => e.listVolumes(labels)),
    inspectVolume: async (name) => this.on(await this.volumeRegion(name), (e) => e.inspectVolume(name)),
    ensureNetwork: (name, labels, options) => {
      this.networks.set(name, [name, labels, options]);
      return this.regions.first.engine.ensureNetwork(name, labels, options);
    },
    networkSubnet: (name) => this.regions.first.engine.networkSubnet(name),
    removeNetwork: async (name) => {
      for (const region of this.upRegions()) await this.on(region, (e) => e.removeNetwork(name));
    },
    connectNetwork: async (network, containerId) => {
      const region = await this.containerRegion(containerId);
      await this.on(region, async (e) => {
        await this.ensureNetworkIn(region, network);
        await e.connectNetwork(network, containerId);
      });
    },
    moveToNetwork: async (containerId, network, aliases) => {
      const region = await this.containerRegion(containerId);
      await this.on(region, async (e) => {
        await this.ensureNetworkIn(region, network);
        await e.moveToNetwork(containerId, network, aliases);
      });
    },
    networkGateways: () => this.union((e) => e.networkGateways()),
    pruneNetworks: async (labels, olderThanS) => {
      for (const region of this.upRegions()) await this.on(region, (e) => e.pruneNetworks(labels, olderThanS));
    },
    connect: this.byContainer((e, id, port: number) => e.connect(id, port)),
    stats: this.byContainer((e, id) => e.stats(id)),
    streamStats: this.byContainer(
      (e, id, onSample: Parameters<ContainerEngine['streamStats']>[1], signal: AbortSignal) =>
        e.streamStats(id, onSample, signal),
    ),
  };

  /**
   * Every region's events that is up. The first region's stream ending ends the watch (the core
   * sees its engine go); another's marks that region down, and its return resyncs everything.
   */
  private async watchEvents(
    labels: Record<string, string>,
    onEvent: Parameters<ContainerEngine['watchEvents']>[1],
    onEnd: (err?: Error) => void,
  ): Promise<Disposable> {
    const watches: Disposable[] = [];
    for (const region of this.upRegions()) {
      const first = region === this.regions.first;
      const ended = (err?: Error) =>
        first ? onEnd(err) : region.monitor.reportDown(err?.message ?? 'its event stream ended');
      try {
        watches.push(await region.engine.watchEvents(labels, onEvent, ended));
      } catch (err) {
        if (first) throw err;
        region.monitor.reportDown((err as Error).message);
      }
    }
    return { dispose: async () => void (await Promise.all(watches.map((w) => w.dispose()))) };
  }
}
