import type { QueryClient } from '@tanstack/react-query';
import type { BoxdeskClient } from '../../../../shared/client';
import type {
  Volume,
  VolumeAttach,
  VolumeBackup,
  VolumeCreate,
  VolumeRestore,
} from '../../../../shared/schemas/volumes';
import { useEventQuery } from '../../api/client-query';
import { useClientMutation } from '../../api/client-mutation';
import { saveBlob } from '../../kit/download';

/** The volumes' queries; the module's event rules (volume-events.ts) patch them. */
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

const newestFirst = <T extends { created_at: string }>(items: T[]) =>
  items.sort((a, b) => b.created_at.localeCompare(a.created_at));

/** The project's volumes; kept current by volume.* events, never by polling. */
export function useVolumes(project: string, enabled = true) {
  return useEventQuery(
    volumeKeys.list(project),
    async (client) => (await client.listVolumes(project)).items.sort((a, b) => a.name.localeCompare(b.name)),
    enabled,
  );
}

/** A volume's copies (snapshots or backups), newest first; none is asked for while no volume is named. */
function useCopies<T extends { created_at: string }>(
  kind: 'snapshots' | 'backups',
  project: string,
  name: string | null,
  list: (client: BoxdeskClient, name: string) => Promise<{ items: T[] }>,
) {
  return useEventQuery(
    volumeKeys[kind](project, name ?? ''),
    async (client) => newestFirst((await list(client, name!)).items),
    name !== null,
  );
}

/** A volume's snapshots; refetched when a volume.updated event names the volume. */
export function useVolumeSnapshots(project: string, name: string | null) {
  return useCopies('snapshots', project, name, (c, n) => c.listVolumeSnapshots(project, n));
}

/** A volume's backups; volume.backup events patch them (pending, then done or failed). */
export function useVolumeBackups(project: string, name: string | null) {
  return useCopies('backups', project, name, (c, n) => c.listVolumeBackups(project, n));
}

const putVolume = (qc: QueryClient, v: Volume) => patchVolume(qc, v);

export function useCreateVolume(project: string) {
  return useClientMutation((c, body: VolumeCreate) => c.createVolume(project, body), putVolume);
}

export function useDeleteVolume(project: string) {
  return useClientMutation(
    (c, volume: Volume) => c.deleteVolume(project, volume.name),
    (qc, _, volume) => patchVolume(qc, volume, true),
  );
}

/** Mounts a volume in a box: the box's container is recreated (root kept), so a running box restarts. */
export function useAttachVolume(project: string) {
  return useClientMutation(
    (c, { name, body }: { name: string; body: VolumeAttach }) => c.attachVolume(project, name, body),
    putVolume,
  );
}

export function useDetachVolume(project: string) {
  return useClientMutation(
    (c, { name, box }: { name: string; box: string }) => c.detachVolume(project, name, box),
    putVolume,
  );
}

export function useTakeVolumeSnapshot(project: string, name: string) {
  return useClientMutation((c) => c.createVolumeSnapshot(project, name), volumeKeys.snapshots(project, name));
}

export function useDeleteVolumeSnapshot(project: string, name: string) {
  return useClientMutation(
    (c, id: string) => c.deleteVolumeSnapshot(project, name, id),
    volumeKeys.snapshots(project, name),
  );
}

/** 202 with a pending backup; its end comes as a volume.backup event. */
export function useStartBackup(project: string, name: string) {
  return useClientMutation(
    (c) => c.createVolumeBackup(project, name),
    (qc, b) => patchBackup(qc, project, b),
  );
}

export function useDeleteBackup(project: string, name: string) {
  return useClientMutation(
    (c, id: string) => c.deleteVolumeBackup(project, name, id),
    volumeKeys.backups(project, name),
  );
}

export function useRestoreVolume(project: string, name: string) {
  return useClientMutation((c, body: VolumeRestore) => c.restoreVolume(project, name, body), putVolume);
}

/** Saves a done backup's .tar.gz to the user's downloads. */
export function useDownloadBackup(project: string, name: string) {
  return useClientMutation(async (c, backup: VolumeBackup) => {
    const res = await c.downloadVolumeBackup(project, name, backup.id);
    saveBlob(await (res as unknown as Response).blob(), `${name}-${backup.id}.tar.gz`);
  });
}
