import { ApiError } from '../../../shared/errors';
import type { DataMount } from '../../../shared/schemas/box';
import type { VolumeMount } from '../engine/container-engine';
import type { BoxRow } from './box-row';

/*
 * What other modules plug into boxes. They come after boxes (they need its port), so boxes
 * cannot ask for their ports: it names what it needs here, and they register it
 * (BoxesPort.useForkSnapshots, useVolumes, holdImages, guardClientDeletes).
 */

/** A snapshot a fork may start from. */
export interface ForkSnapshot {
  id: string;
  image: string;
  /** Its /workspace's store item; 'empty': an empty workspace (no item kept); null: taken before the store. */
  item: string | 'empty' | null;
  base: string | null;
  /** The box's config and environment when it was taken: a fork from the snapshot starts with them. */
  config: string;
  environment: string;
}

/** What a fork needs of snapshots (snapshots/ provides it). */
export interface ForkSnapshots {
  /** Whether `ref` has the form of a snapshot id (a box name never has). */
  names(ref: string): boolean;
  /** The ready snapshot `id` of the project, or undefined. */
  find(project: string, id: string): ForkSnapshot | undefined;
}

/** What a box's data_mounts need of data volumes (volumes/ provides it). */
export interface MountedVolumes {
  /** 404 for a mount of a volume the project does not have; with `box`, 409 for one in another region. */
  require(project: string, mounts: DataMount[] | null, box?: { name: string; region: string }): void;
  /** The engine volumes a box's data_mounts name, for its container. */
  engineMounts(row: Pick<BoxRow, 'project' | 'name' | 'data_mounts'>): VolumeMount[];
}

/** Images something other than a box holds (a snapshot's): the start-time collection keeps them. */
export type ImageHolder = () => Iterable<string>;

/** A rule on deletes a client asks for (a service's live box): throws to refuse. */
export type DeleteGuard = (row: BoxRow) => void;

/** Without a volumes module no volume exists: a mount of one is a 404. */
const NO_VOLUMES: MountedVolumes = {
  require(project, mounts) {
    const first = mounts?.[0];
    if (first) throw new ApiError('not_found', `volume "${first.name}" not found in project "${project}"`);
  },
  engineMounts: () => [],
};

/** The extensions registered so far; read at each use, so a module may register after boxes is made. */
export class BoxExtensions {
  private snapshots: ForkSnapshots | null = null;
  private mounted: MountedVolumes = NO_VOLUMES;
  readonly imageHolders: ImageHolder[] = [];
  readonly deleteGuards: DeleteGuard[] = [];

  get forkSnapshots(): ForkSnapshots | null {
    return this.snapshots;
  }

  get volumes(): MountedVolumes {
    return this.mounted;
  }

  useForkSnapshots(snapshots: ForkSnapshots): void {
    this.snapshots = snapshots;
  }

  useVolumes(volumes: MountedVolumes): void {
    this.mounted = volumes;
  }
}
