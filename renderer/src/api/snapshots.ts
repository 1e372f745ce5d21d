import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Snapshot } from '../../../shared/schemas/snapshots';
import { upsertBoxes } from './box-cache';
import { useClient } from './client-context';

/** The keys of this file's queries (beside query-keys.ts so the event stream can find them). */
export const snapshotKeys = {
  all: ['snapshots'] as const,
  project: (project: string) => ['snapshots', project] as const,
};

/** Every snapshot of a project (the lineage needs other boxes' snapshots too); kept current by snapshot.* events. */
export function useProjectSnapshots(project: string) {
  const client = useClient();
  return useQuery({
    queryKey: snapshotKeys.project(project),
    queryFn: async () => (await client.listProjectSnapshots(project)).items,
    staleTime: Infinity,
  });
}

function useInvalidateSnapshots(project: string) {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: snapshotKeys.project(project) });
}

export function useTakeSnapshot(project: string, box: string) {
  const client = useClient();
  const invalidate = useInvalidateSnapshots(project);
  return useMutation({
    mutationFn: (name?: string) => client.createSnapshot(project, box, name ? { name } : {}),
    onSuccess: invalidate,
  });
}

export function useDeleteSnapshot(project: string) {
  const client = useClient();
  const invalidate = useInvalidateSnapshots(project);
  return useMutation({
    mutationFn: (snapshot: Snapshot) => client.deleteSnapshot(project, snapshot.id),
    onSuccess: invalidate,
  });
}

/** The box's root becomes the snapshot's; the answer (the box) goes in the caches. */
export function useRestoreBox(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ box, snapshot }: { box: string; snapshot: Snapshot }) =>
      client.restoreBox(project, box, { snapshot_id: snapshot.id }),
    onSuccess: (box) => upsertBoxes(qc, [box]),
  });
}

/** A new box from a snapshot. */
export function useForkSnapshot(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, snapshot }: { name: string; snapshot: Snapshot }) =>
      client.forkBox(project, snapshot.id, name),
    onSuccess: (box) => upsertBoxes(qc, [box]),
  });
}
