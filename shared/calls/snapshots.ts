import type { Box } from '../schemas/box';
import type { RestoreRequest, Snapshot, SnapshotCreate, SnapshotList } from '../schemas/snapshots';
import { type ClientConstructor, enc, boxPath } from './client-core';

/** Snapshots of a box's root, and restoring a box from one. */
export function withSnapshots<B extends ClientConstructor>(Base: B) {
  return class SnapshotCalls extends Base {
    createSnapshot(project: string, box: string, body: SnapshotCreate = {}): Promise<Snapshot> {
      return this.request('POST', boxPath(project, box, '/snapshots'), body);
    }

    listSnapshots(project: string, box: string): Promise<SnapshotList> {
      return this.request('GET', boxPath(project, box, '/snapshots'));
    }

    listProjectSnapshots(project: string): Promise<SnapshotList> {
      return this.request('GET', `/v1/projects/${enc(project)}/snapshots`);
    }

    getSnapshot(project: string, id: string): Promise<Snapshot> {
      return this.request('GET', `/v1/projects/${enc(project)}/snapshots/${enc(id)}`);
    }

    deleteSnapshot(project: string, id: string): Promise<void> {
      return this.request('DELETE', `/v1/projects/${enc(project)}/snapshots/${enc(id)}`);
    }

    restoreBox(project: string, box: string, body: RestoreRequest): Promise<Box> {
      return this.request('POST', boxPath(project, box, '/restore'), body);
    }
  };
}
