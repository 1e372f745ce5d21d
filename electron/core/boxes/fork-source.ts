import { ApiError } from '../../../shared/errors';
import type { BoxRow, NewRoot } from './box-row';
import type { ForkSnapshot, ForkSnapshots } from './extensions';
import type { RootImages } from './root-images';

/** What a fork starts from: a box of the project (its root at this instant) or one of its snapshots. */
export type ForkSource =
  | { kind: 'box'; row: BoxRow; base: string | null; config: string; environment: string }
  | { kind: 'snapshot'; snapshot: ForkSnapshot; base: string | null; config: string; environment: string };

/** What a fork needs of the box service. */
export interface ForkBoxes {
  find(project: string, name: string): BoxRow;
  withLock<T>(boxId: string, work: () => Promise<T>): Promise<T>;
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
 * The fork's root. From a snapshot: its image, shared (the snapshot cannot
 * be deleted while the fork lives). From a box: a commit of the box's root
 * at this instant (paused only for the commit), owned by the fork.
 */
export async function forkRoot(
  boxes: ForkBoxes,
  roots: RootImages,
  snapshots: ForkSnapshots | null,
  project: string,
  source: ForkSource,
): Promise<NewRoot> {
  if (source.kind === 'snapshot') {
    if (!snapshots?.find(project, source.snapshot.id))
      throw new ApiError('not_found', `snapshot "${source.snapshot.id}" was deleted`);
    return { image: source.snapshot.image, ownsImage: false, origin: source.snapshot.id };
  }
  return boxes.withLock(source.row.id, async () => {
    const row = boxes.find(source.row.project, source.row.name);
    if (!row.container_id || !['running', 'stopped'].includes(row.status)) {
      throw new ApiError('conflict', `cannot fork box "${row.name}" while it is ${row.status}`);
    }
    const image = await roots.commit(row.container_id, row.image, 'fork', row.id);
    return { image: image.id, ownsImage: true, origin: row.origin };
  });
}
