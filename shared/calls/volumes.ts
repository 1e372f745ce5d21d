import type {
  Volume,
  VolumeAttach,
  VolumeBackup,
  VolumeBackupList,
  VolumeCreate,
  VolumeList,
  VolumeRestore,
  VolumeSnapshot,
  VolumeSnapshotList,
} from '../schemas/volumes';
import { type ClientConstructor, type FetchResponse, enc } from './client-core';

function volumePath(project: string, name?: string, route = ''): string {
  return `/v1/projects/${enc(project)}/volumes${name === undefined ? '' : `/${enc(name)}`}${route}`;
}

/** Data volumes: records, mounts, snapshots, backups, restores. */
export function withVolumes<B extends ClientConstructor>(Base: B) {
  return class VolumeCalls extends Base {
    /** An empty volume, or a clone (from_volume, from_snapshot or from_backup). */
    createVolume(project: string, body: VolumeCreate): Promise<Volume> {
      return this.request('POST', volumePath(project), body);
    }

    listVolumes(project: string): Promise<VolumeList> {
      return this.request('GET', volumePath(project));
    }

    getVolume(project: string, name: string): Promise<Volume> {
      return this.request('GET', volumePath(project, name));
    }

    deleteVolume(project: string, name: string): Promise<void> {
      return this.request('DELETE', volumePath(project, name));
    }

    /** Mounts the volume in a box (its container is recreated, root kept: a running box restarts). */
    attachVolume(project: string, name: string, body: VolumeAttach): Promise<Volume> {
      return this.request('POST', volumePath(project, name, '/attach'), body);
    }

    detachVolume(project: string, name: string, box: string): Promise<Volume> {
      return this.request('POST', volumePath(project, name, '/detach'), { box });
    }

    createVolumeSnapshot(project: string, name: string): Promise<VolumeSnapshot> {
      return this.request('POST', volumePath(project, name, '/snapshots'));
    }

    listVolumeSnapshots(project: string, name: string): Promise<VolumeSnapshotList> {
      return this.request('GET', volumePath(project, name, '/snapshots'));
    }

    deleteVolumeSnapshot(project: string, name: string, id: string): Promise<void> {
      return this.request('DELETE', volumePath(project, name, `/snapshots/${enc(id)}`));
    }

    /** Starts a backup (pending); it ends done or failed (volume.backup events, or poll getVolumeBackup). */
    createVolumeBackup(project: string, name: string): Promise<VolumeBackup> {
      return this.request('POST', volumePath(project, name, '/backups'));
    }

    listVolumeBackups(project: string, name: string): Promise<VolumeBackupList> {
      return this.request('GET', volumePath(project, name, '/backups'));
    }

    getVolumeBackup(project: string, name: string, id: string): Promise<VolumeBackup> {
      return this.request('GET', volumePath(project, name, `/backups/${enc(id)}`));
    }

    /** The .tar.gz: Content-Length and X-Checksum-Sha256 (hex) in the headers, the body is the stream. */
    downloadVolumeBackup(project: string, name: string, id: string): Promise<FetchResponse> {
      return this.raw('GET', volumePath(project, name, `/backups/${enc(id)}/download`), undefined, {
        accept: 'application/gzip',
      });
    }

    deleteVolumeBackup(project: string, name: string, id: string): Promise<void> {
      return this.request('DELETE', volumePath(project, name, `/backups/${enc(id)}`));
    }

    restoreVolume(project: string, name: string, body: VolumeRestore): Promise<Volume> {
      return this.request('POST', volumePath(project, name, '/restore'), body);
    }
  };
}
