import type { VolumeCreate } from '../../../../shared/schemas/volumes';
import { dnsLabelError, numberError } from '../../kit/validators';

export type Source = 'empty' | 'volume' | 'snapshot' | 'backup';

/** A clone source chosen elsewhere (a snapshot's or a backup's "Clone into a new volume"). */
export interface ClonePreset {
  kind: 'snapshot' | 'backup';
  id: string;
  /** The volume it belongs to, for the words. */
  volume: string;
}

export interface VolumeValues {
  name: string;
  size_gb: number | string;
  backup_retention: number | string;
  source: Source;
  volume: string | null;
  snapshot: string | null;
  backup: string | null;
}

export const EMPTY_VOLUME: VolumeValues = {
  name: '',
  size_gb: '',
  backup_retention: '',
  source: 'empty',
  volume: null,
  snapshot: null,
  backup: null,
};

/** The form field a problem's errors[].path names (`size_gb` → size_gb, `from_volume` → volume). */
export function volumeFieldOf(path: string): keyof VolumeValues | null {
  if (path === 'name' || path === 'size_gb' || path === 'backup_retention') return path;
  if (path === 'from_volume') return 'volume';
  if (path === 'from_snapshot') return 'snapshot';
  if (path === 'from_backup') return 'backup';
  return null;
}

/** The schema's bounds and what a clone needs picked, as you type (a preset needs nothing picked). */
export function volumeRules(preset: boolean) {
  return {
    name: dnsLabelError,
    size_gb: (v: number | string) => numberError(v, { what: 'Size', min: 1, max: 65536 }),
    backup_retention: (v: number | string) => numberError(v, { what: 'Backups kept', min: 1, max: 1000 }),
    volume: (v: string | null, all: VolumeValues) =>
      !preset && all.source !== 'empty' && !v ? 'Pick the volume to copy from' : null,
    snapshot: (v: string | null, all: VolumeValues) =>
      !preset && all.source === 'snapshot' && !v ? 'Pick a snapshot of that volume' : null,
    backup: (v: string | null, all: VolumeValues) =>
      !preset && all.source === 'backup' && !v ? 'Pick a done backup of that volume' : null,
  };
}

/** POST /volumes from the form: the preset's source, else the one picked. */
export function volumeBody(v: VolumeValues, preset: ClonePreset | null): VolumeCreate {
  const body: VolumeCreate = { name: v.name };
  if (v.size_gb !== '') body.size_gb = Number(v.size_gb);
  if (v.backup_retention !== '') body.backup_retention = Number(v.backup_retention);
  if (preset?.kind === 'snapshot') body.from_snapshot = preset.id;
  else if (preset?.kind === 'backup') body.from_backup = preset.id;
  else if (v.source === 'volume') body.from_volume = v.volume!;
  else if (v.source === 'snapshot') body.from_snapshot = v.snapshot!;
  else if (v.source === 'backup') body.from_backup = v.backup!;
  return body;
}
