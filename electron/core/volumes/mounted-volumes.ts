import { ApiError } from '../../../shared/errors';
import type { DataMount } from '../../../shared/schemas/box';
import type { BoxRow, MountedVolumes } from '../boxes/port';
import type { VolumeMount } from '../engine/container-engine';
import type { VolumeStore } from './store';
import { requireSameRegion } from './volume-regions';

/** 404 for a mount of a volume the project does not have; with `box`, 409 for one of another region. */
export function requireVolumes(
  store: VolumeStore,
  project: string,
  mounts: DataMount[] | null,
  box?: { name: string; region: string },
): void {
  for (const [i, m] of (mounts ?? []).entries()) {
    const volume = store.get(project, m.name);
    if (volume?.status === 'ready' && box) requireSameRegion(volume, box.name, box.region);
    if (volume?.status !== 'ready') {
      throw new ApiError(
        'not_found',
        `volume "${m.name}" not found in project "${project}"; create it first (POST /v1/projects/${project}/volumes)`,
        {
          errors: [{ path: `body.data_mounts[${i}].name`, message: 'no such volume' }],
        },
      );
    }
  }
}

/** The engine volumes a box's data_mounts name, for its container. */
export function engineMounts(store: VolumeStore, row: Pick<BoxRow, 'project' | 'name' | 'data_mounts'>): VolumeMount[] {
  const mounts = row.data_mounts ? (JSON.parse(row.data_mounts) as DataMount[]) : [];
  return mounts.map((m) => {
    const volume = store.get(row.project, m.name);
    if (!volume) throw new Error(`box "${row.name}" mounts volume "${m.name}", which has no record`);
    return { volume: volume.engine_name, path: m.path, readOnly: m.read_only ?? false };
  });
}

/** What boxes need of volumes for their data_mounts (registered with BoxesPort.useVolumes). */
export function mountedVolumes(store: VolumeStore): MountedVolumes {
  return {
    require: (project, mounts, box) => requireVolumes(store, project, mounts, box),
    engineMounts: (row) => engineMounts(store, row),
  };
}
