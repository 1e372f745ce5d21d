import type { Snapshot } from '../../../../shared/schemas/snapshots';
import { useEventQuery } from '../../api/client-query';
import { useClientMutation } from '../../api/client-mutation';
import { upsertBoxes } from '../boxes/box-cache';

/** The snapshots' one query per project; snapshot.* events refetch it. */
export const snapshotKeys = {
  project: (project: string) => ['snapshots', project] as const,
};

/** Every snapshot of a project (the lineage needs other boxes' snapshots too); kept current by snapshot.* events. */
export function useProjectSnapshots(project: string) {
  return useEventQuery(
    snapshotKeys.project(project),
    async (client) => (await client.listProjectSnapshots(project)).items,
  );
}

export function useTakeSnapshot(project: string, box: string) {
  return useClientMutation(
    (c, name: string | undefined) => c.createSnapshot(project, box, name ? { name } : {}),
    snapshotKeys.project(project),
  );
}

export function useDeleteSnapshot(project: string) {
  return useClientMutation(
    (c, snapshot: Snapshot) => c.deleteSnapshot(project, snapshot.id),
    snapshotKeys.project(project),
  );
}

/** The box's root becomes the snapshot's; the answer (the box) goes in the caches. */
export function useRestoreBox(project: string) {
  return useClientMutation(
    (c, { box, snapshot }: { box: string; snapshot: Snapshot }) =>
      c.restoreBox(project, box, { snapshot_id: snapshot.id }),
    (qc, box) => upsertBoxes(qc, [box]),
  );
}

/** A new box from a snapshot. */
export function useForkSnapshot(project: string) {
  return useClientMutation(
    (c, { name, snapshot }: { name: string; snapshot: Snapshot }) => c.forkBox(project, snapshot.id, name),
    (qc, box) => upsertBoxes(qc, [box]),
  );
}
