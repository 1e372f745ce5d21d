import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../../shared/errors';
import { isImageReference } from '../../../shared/schemas/common';
import type { Base, BaseCreate, BaseUpdate, DefaultBaseInfo } from '../../../shared/schemas/system';
import type { ContainerEngine } from '../engine/container-engine';
import { EngineError } from '../engine/container-engine';
import type { EventBus } from '../events/event-bus';
import { now } from '../ids';
import { DEFAULT_BASE, DEFAULT_WARM, type BaseCatalogWrites, type BasesPort, type WarmTarget } from './port';
import type { BaseRow, BaseStore } from './store';

/** The base catalog: the default base and its image, lookups, and the writes base authoring makes. */
export class BaseService implements BasesPort, BaseCatalogWrites {
  /** Why the default base is unusable, when it is. */
  private defaultProblem: string | null = null;
  private pulling: Promise<void> | null = null;
  /** Told of every change of a base's image (or its arrival in the engine), warm count or existence (the warm pools follow them). */
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly store: BaseStore,
    private readonly engine: ContainerEngine,
    private readonly bus: EventBus,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Registers `default` for the image on first start; on a later start an image the user named
   * (--default-base) replaces the one the data dir holds, so the flag always takes effect.
   */
  registerDefault(image: string, given: boolean, warm: number | null = null): void {
    if (this.store.insert({ name: DEFAULT_BASE, image, created_at: now(), warm: warm ?? DEFAULT_WARM })) return;
    if (warm !== null) this.store.setWarm(DEFAULT_BASE, warm);
    const held = this.store.get(DEFAULT_BASE)!.image;
    if (!given || held === image) return;
    this.store.setImage(DEFAULT_BASE, image);
    this.defaultProblem = null;
    this.log.info({ from: held, to: image }, 'the default base now starts from the image --default-base names');
  }

  /** The default base and whether a box can start from it now, or why not and what to do (GET /v1/system). */
  async defaultBase(): Promise<DefaultBaseInfo> {
    const { image } = this.store.get(DEFAULT_BASE)!;
    const described = { name: DEFAULT_BASE, image };
    let present: boolean;
    try {
      present = (await this.engine.inspectImage(image)) !== null;
    } catch (err) {
      const why = err instanceof EngineError ? err.message : String(err);
      return { ...described, available: false, reason: `the engine cannot be asked (${why}); start it` };
    }
    if (present) return { ...described, available: true };
    const reason = this.pulling
      ? `its image "${image}" is being pulled; boxes can start once it is in`
      : (this.defaultProblem ??
        `its image "${image}" is not in the engine. Load it (docker pull ${image}), or restart the core with --default-base naming an image the engine has.`);
    return { ...described, available: false, reason };
  }

  /** Pulls the default base's image, with progress, when the engine lacks it. */
  ensureDefaultImage(): Promise<void> {
    const row = this.store.get(DEFAULT_BASE);
    if (!row) return Promise.resolve();
    this.pulling ??= this.ensureImage(row).finally(() => (this.pulling = null));
    return this.pulling;
  }

  private async ensureImage(base: BaseRow): Promise<void> {
    if (await this.engine.inspectImage(base.image)) {
      this.defaultProblem = null;
      return;
    }
    this.log.info({ image: base.image }, `pulling the image of base "${base.name}"`);
    let last = 0;
    try {
      await this.engine.pullImage(base.image, (progress) => {
        const t = Date.now();
        if (t - last < 500) return;
        last = t;
        this.log.info({ image: base.image, progress }, 'pull progress');
        this.bus.emit('base.pull', { name: base.name, image: base.image, progress, done: false }, null);
      });
      this.defaultProblem = null;
      this.bus.emit('base.pull', { name: base.name, image: base.image, progress: 'done', done: true }, null);
      // Its warm pool can be made now.
      this.changed();
      this.log.info({ image: base.image }, 'pulled');
    } catch (err) {
      const reason = err instanceof EngineError ? err.message : String(err);
      this.defaultProblem = `the image "${base.image}" of base "${base.name}" is not in the engine and could not be pulled (${reason}). Load it into the engine (docker pull, docker load or docker import), or start the core with --default-base naming an image the engine has.`;
      this.bus.emit(
        'base.pull',
        { name: base.name, image: base.image, progress: 'failed', done: true, error: this.defaultProblem },
        null,
      );
      this.log.error(this.defaultProblem);
    }
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  warmTargets(): WarmTarget[] {
    return this.store.list().map((b) => ({ name: b.name, image: b.image, warm: b.warm ?? 0 }));
  }

  /** PUT /v1/bases/{name}: its warm count (the pool follows in the background). */
  async update(name: string, input: BaseUpdate): Promise<Base> {
    if (!this.store.get(name)) throw new ApiError('not_found', `base "${name}" not found; GET /v1/bases lists them`);
    this.store.setWarm(name, input.warm);
    const base = await this.describe(this.store.get(name)!);
    this.bus.emit('base.updated', { base }, null);
    this.changed();
    return base;
  }

  has(name: string): boolean {
    return this.store.get(name) !== undefined;
  }

  get(name: string): BaseRow | undefined {
    return this.store.get(name);
  }

  all(): BaseRow[] {
    return this.store.list();
  }

  insert(row: BaseRow): boolean {
    const inserted = this.store.insert(row);
    if (inserted) this.changed();
    return inserted;
  }

  delete(name: string): void {
    this.store.delete(name);
    this.changed();
  }

  replaceImage(name: string, image: string): void {
    this.store.setImage(name, image, 1);
    this.changed();
  }

  images(): string[] {
    return this.store.list().map((b) => b.image);
  }

  madeFrom(snapshotId: string): string[] {
    return this.store.madeFrom(snapshotId);
  }

  async list(): Promise<Base[]> {
    return Promise.all(this.store.list().map((row) => this.describe(row)));
  }

  async describe(row: BaseRow): Promise<Base> {
    const image = await this.engine.inspectImage(row.image).catch(() => null);
    return {
      name: row.name,
      image: row.image,
      image_id: image?.id ?? null,
      size_bytes: image?.sizeBytes ?? null,
      created_at: row.created_at,
      from_snapshot: row.from_snapshot ?? null,
      warm: row.warm ?? 0,
    };
  }

  async register(input: BaseCreate & { image: string }): Promise<Base> {
    // The reference becomes part of an Engine API URL: never let an unchecked one reach it.
    if (!isImageReference(input.image)) {
      throw new ApiError(
        'invalid_body',
        `"${input.image}" is not an image reference; write it as [registry[:port]/]name[:tag][@digest], e.g. debian:bookworm-slim`,
        {
          errors: [{ path: 'body.image', message: 'is not an image reference' }],
        },
      );
    }
    if (this.store.get(input.name)) throw new ApiError('already_exists', `base "${input.name}" already exists`);
    if (!(await this.engine.inspectImage(input.image))) {
      throw new ApiError('not_found', `the engine has no image "${input.image}"; pull, load or import it first`);
    }
    const row = { name: input.name, image: input.image, created_at: now() };
    if (!this.insert(row)) throw new ApiError('already_exists', `base "${input.name}" already exists`);
    return this.describe(row);
  }

  /** The engine image a box of this base starts from. */
  async resolveImage(name: string): Promise<string> {
    const row = this.store.get(name);
    if (!row) throw new ApiError('not_found', `base "${name}" not found; GET /v1/bases lists them`);
    if (await this.engine.inspectImage(row.image)) return row.image;
    if (name === DEFAULT_BASE && this.pulling) {
      throw new ApiError(
        'conflict',
        `the default base's image "${row.image}" is still being pulled; try again when GET /v1/bases shows its image_id`,
      );
    }
    throw new ApiError(
      'conflict',
      this.defaultProblem && name === DEFAULT_BASE
        ? this.defaultProblem
        : `the image "${row.image}" of base "${name}" is no longer in the engine; load it again`,
    );
  }
}
