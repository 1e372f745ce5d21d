import type { EgressProxy } from '../networks/egress-proxy';
import type { ApiError } from '../../../shared/errors';
import type { Box, BoxCreate, DataMount } from '../../../shared/schemas/box';
import type { LifecycleInput } from '../../../shared/schemas/box-lifecycle';
import { EngineError } from '../engine/container-engine';
import type { InternalCreate } from './box-create';
import type { BoxRow, NewRoot } from './box-row';
import type { BoxOperation } from './box-state-machine';
import type { DeleteGuard, ForkSnapshots, ImageHolder, MountedVolumes } from './extensions';
import type { PublishedBoxes } from './published-boxes';
import type { RootImages } from './root-images';
import type { BoxMount } from './store';
import type { BoxWorkspaces, WorkspaceSizes } from './workspaces';
import type { EgressRecord } from '../../../shared/schemas/egress';
import type { EgressRecordInput } from '../networks/egress-log';

/*
 * What other modules may use of boxes: this interface, and the types and pure helpers below.
 * Nothing outside boxes/ reads or writes the boxes table.
 */
export type { InternalCreate } from './box-create';
export type { BoxRow, NewRoot, Workspace } from './box-row';
export { boxSnapshotOwner, WORKSPACE_PATH, type BoxWorkspaces, type WorkspaceSizes } from './workspaces';
export { configOf, toBox } from './box-row';
export { assertTransition, type BoxOperation } from './box-state-machine';
export { LABELS, MAIN_COMMAND } from './container-spec';
export { checkDataMounts } from './data-mounts';
export { together } from './box-freeze';
export { mergeLifecycle, parseLifecycle } from './lifecycle/clock-rules';
export type { DeleteGuard, ForkSnapshot, ForkSnapshots, ImageHolder, MountedVolumes } from './extensions';
export type { PublishedState } from './published-boxes';
export { IMAGE_LABELS, type ImageRole, type RootImage } from './root-images';
export type { BoxMount } from './store';

export interface BoxesPort {
  /** The box, or 404. */
  find(project: string, name: string): BoxRow;
  /** The box, if the project has one of that name. */
  lookup(project: string, name: string): BoxRow | undefined;
  byId(id: string): BoxRow | undefined;
  /** Runs `work` in the box's queue, behind its other operations (locks of several boxes: in id order). */
  withLock<T>(boxId: string, work: () => Promise<T>): Promise<T>;

  create(project: string, input: BoxCreate, internal?: InternalCreate): Promise<Box>;
  stop(project: string, name: string): Promise<Box>;
  /** Starts a stopped box (or wakes a paused one): a service's box woken by a request. */
  resume(project: string, name: string): Promise<Box>;
  /** Sets the box's lifecycle clocks (given fields replace, null clears): a service's, on its live box. */
  setLifecycle(project: string, name: string, lifecycle: LifecycleInput): Promise<Box>;
  /** The core's own delete: no client delete guard applies. */
  delete(project: string, name: string): Promise<void>;

  /** The running box, for commands in it (409 otherwise). */
  requireRunning(project: string, name: string, op?: BoxOperation): BoxRow;
  /**
   * The box for something that needs it running (exec, console, jobs, files, logs follow): used
   * now, woken first if it is paused (the call waits in its queue, bounded), then checked for `op`.
   */
  awake(project: string, name: string, op?: BoxOperation): Promise<BoxRow>;
  /**
   * The environment a command in the box starts with: the box's own, under it the egress proxy's
   * variables and over it its secrets' placeholders (for a box with secrets or an allow list).
   */
  environmentOf(row: BoxRow): Promise<Record<string, string>>;
  /** The egress proxy: `onConnection` reports each connection it makes or refuses for a box. */
  egress: Pick<EgressProxy, 'onConnection' | 'port'>;
  /** Wakes the box if it is paused (a proxy request to it); anything else is left as it is. */
  wake(row: Pick<BoxRow, 'project' | 'name' | 'status'>): Promise<void>;
  /** The box was used now (a proxy request): its idle clocks start again. */
  touch(boxId: string): void;
  /** `listener` is awaited before the box's container is paused (the proxy's edge stops routing to it first). */
  beforePause(listener: (boxId: string) => Promise<void>): void;
  /** `listener` is awaited after an update of the box is recorded, before it is answered (the edge routes a new port at once). */
  afterUpdate(listener: (boxId: string) => Promise<void>): void;
  /** The box is in use until the returned release is called (an open socket, a running exec). */
  use(boxId: string): () => void;
  /** The engine refused to run something in the box's container: a 409 that says why and what to do. */
  containerRefused(row: BoxRow, err: EngineError): ApiError;
  /** Whether the kernel OOM-killed something in the container since `since` (epoch ms). */
  oomSince(containerId: string, since: number): boolean;

  /**
   * Replaces the box's container, the box kept: from a given root (a restore) or from its own
   * root, committed (`current`: for a change of mounts). The caller holds the box's lock.
   */
  replaceRoot(row: BoxRow, root: NewRoot | 'current'): Promise<BoxRow>;
  /** Commits of box roots to images (snapshots, bases made from a box). */
  readonly roots: Pick<RootImages, 'commit' | 'labels' | 'removeHelpers'>;
  /** Boxes' /workspace items on the copy-on-write store (snapshots take and keep their own). */
  readonly workspaces: Pick<
    BoxWorkspaces,
    | 'available'
    | 'newItemId'
    | 'snapshot'
    | 'remove'
    | 'exists'
    | 'measure'
    | 'measures'
    | 'copies'
    | 'emptyIn'
    | 'owned'
  >;
  /** Runs `work` with the box paused (a running box with a workspace): its root and workspace at one instant. The caller holds its lock. */
  freeze<T>(row: BoxRow, work: () => Promise<T>): Promise<T>;
  /** Records what the box's /workspace held when last measured. */
  recordSizes(boxId: string, sizes: WorkspaceSizes): void;

  /** Boxes created from the base. */
  usersOfBase(base: string): { project: string; name: string }[];
  /** Boxes whose root descends from the snapshot. */
  withOrigin(snapshotId: string): { project: string; name: string }[];
  /** Who mounts the volume `name` of the project (the boxes' data_mounts are the one record of a mount). */
  mountsOf(project: string, name: string): BoxMount[];
  /** Records the box's mounts (box.updated); its container mounts them once replaced (replaceRoot 'current'). */
  setDataMounts(boxId: string, mounts: DataMount[]): BoxRow;
  /** A box's published state (its url, url_auth and published_domains columns). */
  readonly published: PublishedBoxes;
  /**
   * Removes the base's warm-pool containers that no longer match it (all once it is deleted, those of
   * its old image once it has another) and waits for them: its image can go once this answers.
   */
  drainPool(base: string): Promise<void>;

  /** Forks from snapshots go through these (snapshots/ registers them). */
  /**
   * Adds a record to the box's egress log (networks/egress-log.ts), e.g. from the egress proxy,
   * which knows host names: `recordEgress(boxId, {host, port, allowed, bytes})`. Null: no such box.
   */
  recordEgress(boxId: string, record: EgressRecordInput): EgressRecord | null;
  useForkSnapshots(snapshots: ForkSnapshots): void;
  /** Data mounts name these volumes (volumes/ registers them). */
  useVolumes(volumes: MountedVolumes): void;
  /** Images the start-time collection must keep besides the boxes' and the bases' own. */
  holdImages(holder: ImageHolder): void;
  /** A rule for deletes a client asks for (the core's own deletes skip them). */
  guardClientDeletes(guard: DeleteGuard): void;
}

/** Runs `step` in the box's container; the engine refusing it (paused, not running) becomes a 409 about the box. */
export async function refusedAsConflict<T>(
  boxes: Pick<BoxesPort, 'containerRefused'>,
  row: BoxRow,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof EngineError && err.kind === 'conflict') throw boxes.containerRefused(row, err);
    throw err;
  }
}
