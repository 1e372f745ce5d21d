import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DnsLabel, PrefixedId, Timestamp, prefixedIdPattern } from './common';

export const SNAPSHOT_ID_PATTERN = prefixedIdPattern('snap');
export const SnapshotId = PrefixedId('snap', 'A snapshot id');

export const Snapshot = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    project: Type.String(),
    box: Type.String({ description: 'The name of the box it was taken of.' }),
    box_id: Type.String({
      description:
        'The id of the box it was taken of: a box made later under the same name is another box, without these snapshots.',
    }),
    created_at: Timestamp,
    size_bytes: Type.Integer({
      description:
        'Bytes the snapshot refers to: what its root adds over what it descends from (the whole root when the chain was flattened), plus its /workspace.',
    }),
    exclusive_bytes: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description:
          "Bytes deleting it would free: its root's own bytes plus the /workspace blocks no box or other snapshot shares, as measured when it was taken or last listed; null: a snapshot taken before the copy-on-write store.",
      }),
    ),
    parent_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The snapshot (snap_…) or base (a name) the root descends from.',
    }),
  },
  {},
);
export type Snapshot = Static<typeof Snapshot>;

export const SnapshotCreate = ClosedObject({ name: Type.Optional(DnsLabel) });
export type SnapshotCreate = Static<typeof SnapshotCreate>;

export const SnapshotList = Type.Object({ items: Type.Array(Snapshot) });
export type SnapshotList = Static<typeof SnapshotList>;

export const SnapshotParams = ClosedObject({ project: DnsLabel, id: SnapshotId });
export type SnapshotParams = Static<typeof SnapshotParams>;

export const RestoreRequest = ClosedObject({ snapshot_id: SnapshotId });
export type RestoreRequest = Static<typeof RestoreRequest>;

export const BaseParams = ClosedObject({ name: DnsLabel });
export type BaseParams = Static<typeof BaseParams>;

/** Progress of a base import, as events and in the CLI. */
export const BaseImportProgress = Type.Object({
  name: Type.String(),
  bytes: Type.Integer(),
  total: Type.Union([Type.Integer(), Type.Null()]),
  done: Type.Boolean(),
  error: Type.Optional(Type.String()),
});
export type BaseImportProgress = Static<typeof BaseImportProgress>;

/** The events of snapshots on GET /v1/events, by kind (merged into shared/events.ts). */
export interface SnapshotEvents {
  'snapshot.created': { snapshot: Snapshot };
  'snapshot.deleted': { snapshot: Snapshot };
}

export const SNAPSHOT_EVENTS = {
  'snapshot.created': "a snapshot of a box's root exists",
  'snapshot.deleted': 'a snapshot and its image are gone',
} as const satisfies Record<keyof SnapshotEvents, string>;
