import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ImageConfig, ImageDetails, ImageImportOptions, ImageInfo } from '../container-engine';
import { EngineError } from '../container-engine';
import type { MemoryContainer, MemoryImage } from './memory-container';
import { labelsMatch } from './memory-events';
import { cloneTree, diffTrees, treeBytes, type DirNode } from './memory-fs';
import { rootFromTar } from './memory-tar';

const EMPTY_CONFIG: ImageConfig = { cmd: null, entrypoint: null, env: [], workingDir: '', user: '' };

/** A reference as the engine reads it: a bare name means its `latest` tag. */
function normalizeRef(ref: string): string {
  const lastPart = ref.split('/').at(-1) ?? '';
  return ref.includes('@') || lastPart.includes(':') ? ref : `${ref}:latest`;
}

const newImageId = () => `sha256:${createHash('sha256').update(randomBytes(32)).digest('hex')}`;

/** Images: by id or tag; an image's labels, run configuration and depth travel with it. */
export class ImageTable {
  private readonly images = new Map<string, MemoryImage>();

  constructor(private readonly inUse: (image: MemoryImage) => boolean) {}

  /** Adds an image (a test's base); a tag another image had moves to this one. */
  add(root: DirNode, options: { ref?: string; labels?: Record<string, string>; config?: Partial<ImageConfig> } = {}) {
    const image: MemoryImage = {
      id: newImageId(),
      refs: new Set(),
      root,
      labels: { ...options.labels },
      config: { ...EMPTY_CONFIG, ...options.config },
      layers: 1,
      parentId: null,
    };
    this.images.set(image.id, image);
    if (options.ref) this.tag(image, options.ref);
    return image;
  }

  tag(image: MemoryImage, ref: string): void {
    const normalized = normalizeRef(ref);
    for (const other of this.images.values()) other.refs.delete(normalized);
    image.refs.add(normalized);
  }

  /** A pull: only what is here already (the memory engine has no registry). */
  pull(ref: string): void {
    if (this.find(ref)) return;
    throw new EngineError(
      'failed',
      `pull access denied for ${ref}, repository does not exist (the memory engine has no registry)`,
    );
  }

  find(ref: string): MemoryImage | undefined {
    const byId = this.images.get(ref) ?? this.images.get(`sha256:${ref}`);
    if (byId) return byId;
    const normalized = normalizeRef(ref);
    for (const image of this.images.values()) if (image.refs.has(normalized)) return image;
    if (/^(sha256:)?[0-9a-f]{12,64}$/.test(ref)) {
      const prefix = ref.startsWith('sha256:') ? ref : `sha256:${ref}`;
      const matches = [...this.images.values()].filter((i) => i.id.startsWith(prefix));
      if (matches.length === 1) return matches[0];
    }
    return undefined;
  }

  /** An image for a new container, or the engine's not-found. */
  require(ref: string): MemoryImage {
    const image = this.find(ref);
    if (!image) throw new EngineError('not_found', `No such image: ${ref}`);
    return image;
  }

  details(image: MemoryImage): ImageDetails {
    return {
      ...this.info(image),
      layers: image.layers,
      parentId: image.parentId,
      config: { ...image.config, env: [...image.config.env] },
    };
  }

  info(image: MemoryImage): ImageInfo {
    return { id: image.id, sizeBytes: treeBytes(image.root), labels: { ...image.labels } };
  }

  list(labels: Record<string, string>): ImageInfo[] {
    return [...this.images.values()].filter((i) => labelsMatch(i.labels, labels)).map((i) => this.info(i));
  }

  /** Kept when a container uses it or another image builds on it, as the engine keeps it. */
  remove(ref: string): void {
    const image = this.find(ref);
    if (!image || this.inUse(image)) return;
    if ([...this.images.values()].some((i) => i.parentId === image.id)) return;
    this.images.delete(image.id);
  }

  /**
   * A new image of the container's root: one layer more than its image, the
   * container's labels (its image's and its own) under the given ones, and
   * what it runs as its command.
   */
  commit(container: MemoryContainer, labels: Record<string, string>): MemoryImage {
    const env = Object.entries({ ...Object.fromEntries(splitEnv(container.image.config.env)), ...container.spec.env });
    const image: MemoryImage = {
      id: newImageId(),
      refs: new Set(),
      root: cloneTree(container.rootfs),
      labels: { ...container.labels, ...labels },
      config: {
        ...container.image.config,
        cmd: container.command(),
        entrypoint: [],
        env: env.map(([k, v]) => `${k}=${v}`),
      },
      // A commit of a root with no changes adds no layer (the engine skips empty layers).
      layers: container.image.layers + (diffTrees(container.image.root, container.rootfs).length ? 1 : 0),
      parentId: container.image.id,
    };
    this.images.set(image.id, image);
    return image;
  }

  async import(tar: Readable, options: ImageImportOptions): Promise<string> {
    const root = await rootFromTar(tar);
    return this.add(root, { labels: options.labels, config: options.config }).id;
  }
}

function splitEnv(env: string[]): [string, string][] {
  return env.filter((e) => e.indexOf('=') > 0).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]);
}
