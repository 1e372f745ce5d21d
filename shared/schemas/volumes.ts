import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ClosedObject, DNS_LABEL_PATTERN, DnsLabel, PrefixedId, Timestamp, prefixedIdPattern } from './common';

export const VOLUME_SNAPSHOT_ID_PATTERN = prefixedIdPattern('vsnap');
export const VOLUME_BACKUP_ID_PATTERN = prefixedIdPattern('vbak');
export const VolumeSnapshotId = PrefixedId('vsnap', 'A volume snapshot id');
export const VolumeBackupId = PrefixedId('vbak', 'A volume backup id');

export const DEFAULT_BACKUP_RETENTION = 7;

export const VolumeMountInfo = Type.Object({ box: Type.String(), path: Type.String(), read_only: Type.Boolean() });
export type VolumeMountInfo = Static<typeof VolumeMountInfo>;

export const Volume = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    project: Type.String(),
    size_gb: Type.Union([Type.Integer(), Type.Null()], { description: 'The size asked for at create; null: none.' }),
    size_enforced: Type.Boolean({
      description:
        "Whether size_gb is enforced: a quota on the volume's copy-on-write store item (btrfs stores); false: recorded only (reflink/copy stores, or a volume made before the store).",
    }),
    size_bytes: Type.Integer({
      description:
        'Bytes of data in the volume, as last measured (measured after every change Boxdesk makes, and again at most once a minute while a running box mounts it).',
    }),
    exclusive_bytes: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          'Bytes deleting it would free (blocks no snapshot or clone shares), measured with size_bytes; null: not measured (a volume made before the copy-on-write store).',
      }),
    ),
    created_at: Timestamp,
    mounts: Type.Array(VolumeMountInfo, { description: 'The boxes that mount it.' }),
    backup_retention: Type.Integer({ description: 'Backups kept; past it the oldest goes.' }),
    region: Type.String({ description: 'The region (engine) it lives in; only boxes of that region mount it.' }),
  },
  {},
);
export type Volume = Static<typeof Volume>;

export const VolumeCreate = ClosedObject({
  name: DnsLabel,
  region: Type.Optional(
    Type.String({
      pattern: '^[a-z0-9][a-z0-9-]{0,30}$',
      description:
        'The region (engine) to make it in (GET /v1/regions), default the first. Outside the first region a volume is a plain engine volume: no clones, snapshots or backups.',
    }),
  ),
  size_gb: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65536,
      description: 'Recorded; enforced where the store can (see size_enforced).',
    }),
  ),
  backup_retention: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: `Backups kept (default ${DEFAULT_BACKUP_RETENTION}).` }),
  ),
  from_volume: Type.Optional(
    Type.String({
      pattern: DNS_LABEL_PATTERN,
      maxLength: 63,
      description: 'Clone: a copy of this volume of the project at this instant.',
    }),
  ),
  from_snapshot: Type.Optional(
    Type.String({
      pattern: VOLUME_SNAPSHOT_ID_PATTERN,
      maxLength: 26,
      description: 'Clone: a copy of this volume snapshot of the project.',
    }),
  ),
  from_backup: Type.Optional(
    Type.String({
      pattern: VOLUME_BACKUP_ID_PATTERN,
      maxLength: 25,
      description: 'Clone: the contents of this done backup of the project.',
    }),
  ),
});
export type VolumeCreate = Static<typeof VolumeCreate>;

export const VolumeList = Type.Object({ items: Type.Array(Volume) });
export type VolumeList = Static<typeof VolumeList>;

export const VolumeParams = ClosedObject({ project: DnsLabel, name: DnsLabel });
export type VolumeParams = Static<typeof VolumeParams>;

export const VolumeAttach = ClosedObject({
  box: DnsLabel,
  path: Type.String({
    pattern: '^/',
    maxLength: 4096,
    description: 'Absolute path in the box; not / and not under /proc, /sys or /dev.',
  }),
  read_only: Type.Optional(Type.Boolean({ default: false })),
});
export type VolumeAttach = Static<typeof VolumeAttach>;

export const VolumeDetach = ClosedObject({ box: DnsLabel });
export type VolumeDetach = Static<typeof VolumeDetach>;

export const VolumeSnapshot = Type.Object({
  id: Type.String(),
  volume: Type.String({ description: 'The name of the volume it was taken of.' }),
  created_at: Timestamp,
  size_bytes: Type.Integer({ description: 'Bytes the snapshot refers to.' }),
  exclusive_bytes: Type.Optional(
    Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Bytes deleting it would free (a copy-on-write snapshot takes none until the volume diverges); null: not measured.',
    }),
  ),
  method: Type.Union([Type.Literal('reflink'), Type.Literal('copy')], {
    description:
      'reflink: copy-on-write (a btrfs snapshot, or reflinked files): it shares blocks with the volume; copy: a full copy (the filesystem cannot share blocks).',
  }),
});
export type VolumeSnapshot = Static<typeof VolumeSnapshot>;

export const VolumeSnapshotList = Type.Object({ items: Type.Array(VolumeSnapshot) });
export type VolumeSnapshotList = Static<typeof VolumeSnapshotList>;

/** The path parameters of one snapshot or backup of a volume. */
function volumeItemParams<Id extends TSchema>(id: Id) {
  return ClosedObject({ project: DnsLabel, name: DnsLabel, id });
}

export const VolumeSnapshotParams = volumeItemParams(VolumeSnapshotId);

export const BackupStatus = Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('failed')]);

export const VolumeBackup = Type.Object({
  id: Type.String(),
  volume: Type.String(),
  status: BackupStatus,
  available: Type.Boolean({
    description:
      'Whether it can be restored or downloaded: done, and its archive is in the data dir (false once the file is gone).',
  }),
  created_at: Timestamp,
  finished_at: Type.Union([Timestamp, Type.Null()]),
  size_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes of the .tar.gz, once done.' }),
  sha256: Type.Union([Type.String(), Type.Null()], { description: 'Hex sha256 of the .tar.gz, once done.' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed.' }),
});
export type VolumeBackup = Static<typeof VolumeBackup>;

export const VolumeBackupList = Type.Object({ items: Type.Array(VolumeBackup) });
export type VolumeBackupList = Static<typeof VolumeBackupList>;

export const VolumeBackupParams = volumeItemParams(VolumeBackupId);

export const VolumeRestore = Type.Object(
  { snapshot_id: Type.Optional(VolumeSnapshotId), backup_id: Type.Optional(VolumeBackupId) },
  {
    additionalProperties: false,
    description: 'Exactly one of snapshot_id (a snapshot of this volume) or backup_id (a done backup of this volume).',
  },
);
export type VolumeRestore = Static<typeof VolumeRestore>;

/** The events of volumes on GET /v1/events, by kind (merged into shared/events.ts). */
export interface VolumeEvents {
  'volume.created': { volume: Volume };
  'volume.updated': { volume: Volume };
  'volume.deleted': { volume: Volume };
  /** A backup started (pending), then ended (done or failed). */
  'volume.backup': { volume: string; backup: VolumeBackup };
  /** A backup deleted, by request or past the volume's retention (a deleted snapshot is told as volume.updated). */
  'volume.backup.deleted': { volume: string; backup: VolumeBackup };
}

export const VOLUME_EVENTS = {
  'volume.created': 'a volume was made (empty, or a clone once filled)',
  'volume.updated': "a volume's mounts, size, snapshots or data changed",
  'volume.deleted': 'a volume, its snapshots and its backups are gone',
  'volume.backup': 'a backup started (pending), then ended (done or failed)',
  'volume.backup.deleted': "a backup was deleted, by request or past the volume's retention",
} as const satisfies Record<keyof VolumeEvents, string>;
