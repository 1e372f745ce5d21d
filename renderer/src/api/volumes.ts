import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { Volume, VolumeAttach, VolumeBackup, VolumeCreate, VolumeRestore } from '../../../shared/schemas/volumes';
import { useClient } from './client-context';

/** The keys of this file's queries (beside query-keys.ts so the event stream can find them). */
export const volumeKeys = {
  list: (project: string) => ['volumes', project] as const,
  snapshots: (project: string, name: string) => ['volume-snapshots', project, name] as const,
  backups: (project: string, name: string) => ['volume-backups', project, name] as const,
};

/** Puts a volume (as an event or an answer states it) in the project's list, or takes it out. */
export function patchVolume(qc: QueryClient, volume: Volume, removed = false): void {
  qc.setQueryData<Volume[]>(volumeKeys.list(volume.project), (list) => {
    if (!list) return list;
    const rest = list.filter((v) => v.name !== volume.name);
    return removed ? rest : [...rest, volume].sort((a, b) => a.name.localeCompare(b.name));
  });
}

/** Puts a backup (from a volume.backup event or an answer) in its volume's list, newest first, or takes it out. */
export function patchBackup(qc: QueryClient, project: string, backup: VolumeBackup, removed = false): void {
  qc.setQueryData<VolumeBackup[]>(volumeKeys.backups(project, backup.volume), (list) => {
    if (!list) return list;
    const rest = list.filter((b) => b.id !== backup.id);
    return removed ? rest : [...rest, backup].sort((a, b) => b.created_at.localeCompare(a.created_at));
  });
}

/** The project's volumes; kept current by volume.* events, never by polling. */
export function useVolumes(project: string, enabled = true) {
  const client = useClient();
  return useQuery({
    queryKey: volumeKeys.list(project),
    queryFn: async () => (await client.listVolumes(project)).items.sort((a, b) => a.name.localeCompare(b.name)),
    staleTime: Infinity,
    enabled,
  });
}

/** A volume's snapshots, newest first; refetched when a volume.updated event names the volume. */
export function useVolumeSnapshots(project: string, name: string | null) {
  const client = useClient();
  return useQuery({
    queryKey: volumeKeys.snapshots(project, name ?? ''),
    queryFn: async () =>
      (await client.listVolumeSnapshots(project, name!)).items.sort((a, b) => b.created_at.localeCompare(a.created_at)),
    staleTime: Infinity,
    enabled: name !== null,
  });
}

/** A volume's backups, newest first; volume.backup events patch them (pending, then done or failed). */
export function useVolumeBackups(project: string, name: string | null) {
  const client = useClient();
  return useQuery({
    queryKey: volumeKeys.backups(project, name ?? ''),
    queryFn: async () =>
      (await client.listVolumeBackups(project, name!)).items.sort((a, b) => b.created_at.localeCompare(a.created_at)),
    staleTime: Infinity,
    enabled: name !== null,
  });
}

export function useCreateVolume(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: VolumeCreate) => client.createVolume(project, body),
    onSuccess: (v) => patchVolume(qc, v),
  });
}

export function useDeleteVolume(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (volume: Volume) => client.deleteVolume(project, volume.name),
    onSuccess: (_, volume) => patchVolume(qc, volume, true),
  });
}

/** Mounts a volume in a box: the box's container is recreated (root kept), so a running box restarts. */
export function useAttachVolume(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: VolumeAttach }) => client.attachVolume(project, name, body),
    onSuccess: (v) => patchVolume(qc, v),
  });
}

export function useDetachVolume(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, box }: { name: string; box: string }) => client.detachVolume(project, name, box),
    onSuccess: (v) => patchVolume(qc, v),
  });
}

export function useTakeVolumeSnapshot(project: string, name: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => client.createVolumeSnapshot(project, name),
    onSuccess: () => qc.invalidateQueries({ queryKey: volumeKeys.snapshots(project, name) }),
  });
}

export function useDeleteVolumeSnapshot(project: string, name: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.deleteVolumeSnapshot(project, name, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: volumeKeys.snapshots(project, name) }),
  });
}

/** 202 with a pending backup; its end comes as a volume.backup event. */
export function useStartBackup(project: string, name: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => client.createVolumeBackup(project, name),
    onSuccess: (b) => patchBackup(qc, project, b),
  });
}

export function useDeleteBackup(project: string, name: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.deleteVolumeBackup(project, name, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: volumeKeys.backups(project, name) }),
  });
}

export function useRestoreVolume(project: string, name: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: VolumeRestore) => client.restoreVolume(project, name, body),
    onSuccess: (v) => patchVolume(qc, v),
  });
}

/** Saves a done backup's .tar.gz to the user's downloads, through an object URL. */
export function useDownloadBackup(project: string, name: string) {
  const client = useClient();
  return useMutation({
    mutationFn: async (backup: VolumeBackup) => {
      const res = await client.downloadVolumeBackup(project, name, backup.id);
      const blob = await (res as unknown as Response).blob();
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `${name}-${backup.id}.tar.gz`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });
}
