import type { FastifyBaseLogger } from 'fastify';
import type { ContainerEngine, ImageDetails } from '../engine/container-engine';
import { helperLabels, helperSpec } from '../engine/helper-containers';

/**
 * What an image the core made is for. Every commit and import sets both
 * labels, overriding the values an image inherits from the one below it, so
 * they always describe the image itself.
 */
export const IMAGE_LABELS = { role: 'boxdesk.role', owner: 'boxdesk.owner' } as const;
export type ImageRole = 'snapshot' | 'fork' | 'root' | 'base' | 'tmp';

/**
 * overlay2 refuses a container deeper than 125 layers (and the writable
 * layer counts). Past this many layers a new root image is flattened into
 * one layer, well before the engine's limit.
 */
export const MAX_LAYERS = 100;

export interface RootImage {
  id: string;
  details: ImageDetails;
  /** Bytes the image adds over the one below it (all of it when flattened). */
  ownBytes: number;
  flattened: boolean;
}

/** Commits boxes' roots to images, flattening a chain before it nears the engine's depth limit. */
export class RootImages {
  /** Images never change: what was learnt about one (by id) stays true. */
  private readonly known = new Map<string, ImageDetails>();

  constructor(
    private readonly engine: ContainerEngine,
    private readonly instanceId: string,
    private readonly log: FastifyBaseLogger,
    private readonly maxLayers = MAX_LAYERS,
  ) {}

  labels(role: ImageRole, owner: string): Record<string, string> {
    return { 'boxdesk.instance': this.instanceId, [IMAGE_LABELS.role]: role, [IMAGE_LABELS.owner]: owner };
  }

  /**
   * The container's root as a new image labelled (role, owner). The container
   * is paused only for the commit. When the result would be deeper than
   * MAX_LAYERS, the commit is flattened into a single-layer image with the
   * same run configuration and the same files.
   */
  async commit(containerId: string, baseImage: string, role: ImageRole, owner: string): Promise<RootImage> {
    const below = await this.inspect(baseImage);
    const deep = (below?.layers ?? 0) + 1 > this.maxLayers;
    const committed = await this.engine.commitContainer(containerId, this.labels(deep ? 'tmp' : role, owner));
    const id = deep ? await this.flatten(committed, role, owner) : committed;
    const details = await this.engine.inspectImage(id);
    if (!details) throw new Error(`the engine reported image ${id} committed but cannot inspect it`);
    const ownBytes = deep || !below ? details.sizeBytes : Math.max(0, details.sizeBytes - below.sizeBytes);
    return { id, details, ownBytes, flattened: deep };
  }

  /** Removes an image this core committed (one something still builds on is kept by the engine). */
  async removeImage(id: string): Promise<void> {
    await this.engine.removeImage(id).catch(() => undefined);
  }

  /** Inspects an image, remembering it by id (a tag may move, an id never does). */
  private async inspect(ref: string): Promise<ImageDetails | null> {
    const hit = this.known.get(ref);
    if (hit) return hit;
    const details = await this.engine.inspectImage(ref);
    if (details && ref === details.id) {
      if (this.known.size > 1000) this.known.clear();
      this.known.set(ref, details);
    }
    return details;
  }

  /**
   * Replaces `imageId` (labelled tmp) by a one-layer image of the same files
   * and run configuration: a stopped helper container made from it is
   * exported and the stream imported. The helper and the deep image go.
   */
  async flatten(imageId: string, role: ImageRole, owner: string): Promise<string> {
    const started = Date.now();
    const details = await this.engine.inspectImage(imageId);
    if (!details) throw new Error(`image ${imageId} vanished before it could be flattened`);
    const helper = await this.engine.createContainer(
      helperSpec({
        name: `boxdesk-flatten-${owner.replace(/[^a-zA-Z0-9_.-]/g, '-')}-${Date.now().toString(36)}`,
        image: imageId,
        command: ['/bin/true'],
        hostname: 'flatten',
        labels: helperLabels(this.instanceId, 'tmp', { [IMAGE_LABELS.owner]: owner }),
        limits: { cpus: 1, ramMb: 64, pidsLimit: 64 },
      }),
    );
    try {
      const tar = await this.engine.exportContainer(helper);
      const flat = await this.engine.importImage(tar, { labels: this.labels(role, owner), config: details.config });
      this.log.info(
        { owner, layers: details.layers, ms: Date.now() - started },
        'flattened a deep image chain into one layer',
      );
      return flat;
    } finally {
      await this.engine.removeContainer(helper).catch(() => undefined);
      await this.engine.removeImage(imageId).catch(() => undefined);
    }
  }

  /** Removes helper containers left by a crash mid-flatten. Only at start. */
  async removeHelpers(): Promise<void> {
    for (const c of await this.engine.listContainers({
      'boxdesk.instance': this.instanceId,
      [IMAGE_LABELS.role]: 'tmp',
    }))
      await this.engine.removeContainer(c.id);
  }
}
