import { ApiError } from '../../../shared/errors';
import type { VolumeCreate } from '../../../shared/schemas/volumes';
import type { Regions } from '../engine/regions/regions';
import type { VolumeRow } from './store';

/** The region a volume made before regions is in: the one engine there was, `local`. */
const BEFORE_REGIONS = 'local';

export function regionOf(row: Pick<VolumeRow, 'region'>): string {
  return row.region ?? BEFORE_REGIONS;
}

/**
 * The region a new volume goes to (`region`, default the first), known (400) and up (503). A
 * volume outside the first region is a plain engine volume there: the copy-on-write store, and so
 * clones, snapshots and backups, are the first region's, so a clone into another region, or of a
 * volume there, is a 409 saying so.
 */
export function regionForCreate(regions: Regions, input: VolumeCreate, source: VolumeRow | null): string {
  const first = regions.first.name;
  const region = regions.require(input.region ?? first, 'body.region').name;
  const cloned = input.from_volume ?? input.from_snapshot ?? input.from_backup;
  const sourceRegion = source ? regionOf(source) : first;
  if (cloned !== undefined && (region !== first || sourceRegion !== first))
    throw new ApiError(
      'conflict',
      `a clone is made in the first region ("${first}") from a volume there: volumes in region "${region !== first ? region : sourceRegion}" are plain engine volumes, without the copy-on-write store's clones, snapshots and backups`,
    );
  regions.requireUp(region);
  return region;
}

/** A box mounts volumes of its own region only: another's is a 409 naming both. */
export function requireSameRegion(
  volume: Pick<VolumeRow, 'name' | 'region'>,
  boxName: string,
  boxRegion: string,
): void {
  const region = regionOf(volume);
  if (region !== boxRegion)
    throw new ApiError(
      'conflict',
      `volume "${volume.name}" is in region "${region}" and box "${boxName}" in "${boxRegion}": a box mounts volumes of its own region only`,
    );
}
