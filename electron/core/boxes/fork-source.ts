import { ApiError } from '../../../shared/errors';
import type { SnapshotRow, SnapshotStore } from '../snapshots/store';
import type { RootImages } from './root-images';
import type { BoxService } from './service';
import type { BoxRow } from './store';

/** What a fork starts from: a box of the project (its root at this instant) or one of its snapshots. */
export type ForkSource =
  | { kind: 'box'; row: BoxRow; base: string | null; config: string; environment: string }
  | { kind: 'snapshot'; snapshot: SnapshotRow; base: string | null; config: string; environment: string };

/** The image a new box's container starts from, whether the box owns it, and the snapshot its root descends from. */
export interface NewRoot {
  image: string;
  ownsImage: boolean;
  origin: string | null;
}

export const SNAPSHOT_ID_PATTERN = /^snap_[a-z2-7]{20}$/;

/** The box or snapshot `ref` names in the project, or 404. */
export function resolveForkSource(
  boxes: BoxService,
  snapshots: SnapshotStore,
  project: string,
  ref: string,
): ForkSource {
  if (!SNAPSHOT_ID_PATTERN.test(ref)) {
    const row = boxes.find(project, ref);
    return { kind: 'box', row, base: row.base, config: row.config, environment: row.environment };
  }
  const snapshot = snapshots.get(ref);
  if (!snapshot || snapshot.project !== project || snapshot.status !== 'ready')
    throw new ApiError('not_found', `snapshot "${ref}" not found in project "${project}"`);
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
  boxes: BoxService,
  roots: RootImages,
  snapshots: SnapshotStore,
  source: ForkSource,
): Promise<NewRoot> {
  if (source.kind === 'snapshot') {
    if (!snapshots.get(source.snapshot.id))
      throw new ApiError('not_found', `snapshot "${source.snapshot.id}" was deleted`);
    return { image: source.snapshot.image!, ownsImage: false, origin: source.snapshot.id };
  }
  return boxes.mutex.run(source.row.id, async () => {
    const row = boxes.find(source.row.project, source.row.name);
    if (!row.container_id || !['running', 'stopped'].includes(row.status)) {
      throw new ApiError('conflict', `cannot fork box "${row.name}" while it is ${row.status}`);
    }
    const image = await roots.commit(row.container_id, row.image, 'fork', row.id);
    return { image: image.id, ownsImage: true, origin: row.origin };
  });
}
