import { ApiError } from '../../../shared/errors';
import { together } from './box-freeze';
import type { BoxRow, NewRoot, Workspace } from './box-row';
import type { ForkSnapshot, ForkSnapshots } from './extensions';
import type { RootImages } from './root-images';
import type { BoxWorkspaces } from './workspaces';

/** What a fork starts from: a box of the project (its root at this instant) or one of its snapshots. */
export type ForkSource =
  | { kind: 'box'; row: BoxRow; base: string | null; config: string; environment: string }
  | { kind: 'snapshot'; snapshot: ForkSnapshot; base: string | null; config: string; environment: string };

/** What a fork needs of the box service. */
export interface ForkBoxes {
  find(project: string, name: string): BoxRow;
  withLock<T>(boxId: string, work: () => Promise<T>): Promise<T>;
  /** Runs `work` with the box's container paused (a running box with a workspace), its pause recorded. */
  freeze<T>(row: BoxRow, work: () => Promise<T>): Promise<T>;
}

/** The fork's own workspace: made for `boxId`, capped at `quota`; undefined: the store does not work. */
export interface ForkWorkspace {
  workspaces: BoxWorkspaces;
  boxId: string;
  quota: number | null | undefined;
}

/** The box or snapshot `ref` names in the project, or 404. */
export function resolveForkSource(
  boxes: ForkBoxes,
  snapshots: ForkSnapshots | null,
  project: string,
  ref: string,
): ForkSource {
  if (!snapshots?.names(ref)) {
    const row = boxes.find(project, ref);
    return { kind: 'box', row, base: row.base, config: row.config, environment: row.environment };
  }
  const snapshot = snapshots.find(project, ref);
  if (!snapshot) throw new ApiError('not_found', `snapshot "${ref}" not found in project "${project}"`);
  return {
    kind: 'snapshot',
    snapshot,
    base: snapshot.base,
    config: snapshot.config,
    environment: snapshot.environment,
  };
}

/**
 * The fork's root and workspace. From a snapshot: its image, shared (the snapshot cannot be deleted
 * while the fork lives), and a clone of its workspace. From a box: a commit of the box's root and a
 * clone of its workspace at one instant (the box paused for both), the image owned by the fork. A
 * source made before the store has no workspace item, and neither has its fork.
 */
export async function forkRoot(
  boxes: ForkBoxes,
  roots: RootImages,
  snapshots: ForkSnapshots | null,
  project: string,
  source: ForkSource,
  fork: ForkWorkspace,
): Promise<{ root: NewRoot; workspace: Workspace | null }> {
  const clone = (from: string | 'empty' | null) =>
    from && fork.quota !== undefined ? fork.workspaces.make(fork.boxId, fork.quota, from) : Promise.resolve(null);
  if (source.kind === 'snapshot') {
    if (!snapshots?.find(project, source.snapshot.id))
      throw new ApiError('not_found', `snapshot "${source.snapshot.id}" was deleted`);
    const root = { image: source.snapshot.image, ownsImage: false, origin: source.snapshot.id };
    return { root, workspace: await clone(source.snapshot.item) };
  }
  return boxes.withLock(source.row.id, async () => {
    const row = boxes.find(source.row.project, source.row.name);
    if (!row.container_id || !['running', 'stopped'].includes(row.status)) {
      throw new ApiError('conflict', `cannot fork box "${row.name}" while it is ${row.status}`);
    }
    return boxes.freeze(row, async () => {
      const [workspace, image] = await together(
        async () => {
          // On a copy store an empty workspace is not copied (no helper container for it).
          const empty =
            row.workspace_item && fork.workspaces.copies && (await fork.workspaces.emptyIn(row.container_id!));
          return clone(empty ? 'empty' : row.workspace_item);
        },
        () => roots.commit(row.container_id!, row.image, 'fork', row.id),
        async (made) => {
          await fork.workspaces.remove(made.workspace?.item ?? null);
          if (made.root) await roots.removeImage(made.root.id);
        },
      );
      return { root: { image: image.id, ownsImage: true, origin: row.origin }, workspace };
    });
  });
}
