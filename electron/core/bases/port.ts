import type { Base, BaseCreate, DefaultBaseInfo } from '../../../shared/schemas/system';
import type { BaseRow } from './store';

export type { BaseRow } from './store';

/** The base a box starts from unless it names another; registered at start, never deleted. */
export const DEFAULT_BASE = 'default';

/** The default base's warm count on a new data dir (SPEC: the warm pool). */
export const DEFAULT_WARM = 2;

/** What a base's warm pool should hold: `warm` paused containers of `image`. */
export interface WarmTarget {
  name: string;
  image: string;
  warm: number;
}

/** What other modules ask of the base catalog. */
export interface BasesPort {
  /** The engine image a box of this base starts from: 404 for no such base, 409 when the engine lacks its image. */
  resolveImage(name: string): Promise<string>;
  /** Whether a base of that name exists. */
  has(name: string): boolean;
  /** The images bases hold (the start-time collection of unused images keeps them). */
  images(): string[];
  /** Names of the bases made from the snapshot (or from a box whose root descends from it). */
  madeFrom(snapshotId: string): string[];
  /** The default base, and whether boxes can start from it now (or why not). */
  defaultBase(): Promise<DefaultBaseInfo>;
  /** Each base's image and warm count, for the warm pools. */
  warmTargets(): WarmTarget[];
  /** Calls `listener` after any base is added, deleted, given another image or another warm count, and when the default base's image is pulled. */
  onChange(listener: () => void): void;
}

/** What base authoring (bases/authoring.ts, its own module) writes to the catalog. */
export interface BaseCatalogWrites {
  get(name: string): BaseRow | undefined;
  /** Every base, by name. */
  all(): BaseRow[];
  /** Registers an image the engine has, under a new name (400 for a bad reference, 404 without the image). */
  register(input: BaseCreate & { image: string }): Promise<Base>;
  /** false when the name is taken. */
  insert(row: BaseRow): boolean;
  delete(name: string): void;
  /** Points the base at an image the core made for it (a rebuild): the base owns it from now on. */
  replaceImage(name: string, image: string): void;
  describe(row: BaseRow): Promise<Base>;
}
