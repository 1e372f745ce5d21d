import type { DataMount } from '../../../shared/schemas/box';
import type { VolumeRow } from './store';

/** What services ask of volumes: a spec's mounts must name volumes, and a volume a spec names cannot go. */
export interface VolumesPort {
  /** 404 for a mount of a volume the project does not have. */
  requireVolumes(project: string, mounts: DataMount[] | null): void;
  /** A rule on deleting a volume (a service's spec naming it): throws to refuse. */
  guardDeletes(guard: (volume: Pick<VolumeRow, 'project' | 'name'>) => void): void;
}
