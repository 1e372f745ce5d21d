import { Badge, Table } from '@mantine/core';
import { IconCamera } from '@tabler/icons-react';
import type { VolumeSnapshot } from '../../../../shared/schemas/volumes';
import { notifyDone } from '../../app/notify';
import { formatBytes } from '../../kit/format';
import { useDeleteVolumeSnapshot, useTakeVolumeSnapshot, useVolumeSnapshots } from './use-volumes';
import { CopyActions, CopyRow, VolumeSection, confirmDeleteCopy, type SectionProps } from './volume-section';

function SnapshotRow({
  snapshot: s,
  volume,
  onRestore,
  onClone,
  onDelete,
}: Omit<SectionProps, 'onFailure'> & {
  snapshot: VolumeSnapshot;
  onDelete(s: VolumeSnapshot): void;
}) {
  return (
    <CopyRow
      kind="snapshot"
      copy={s}
      actions={<CopyActions kind="snapshot" id={s.id} volume={volume} onRestore={onRestore} onClone={onClone} />}
      onDelete={() => onDelete(s)}
    >
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatBytes(s.size_bytes)}</Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }} title="What deleting this snapshot would free">
        {formatBytes(s.exclusive_bytes)}
      </Table.Td>
      <Table.Td>
        <Badge
          variant="light"
          color="gray"
          size="sm"
          title={
            s.method === 'reflink'
              ? 'copy-on-write clones of the files'
              : 'a full copy: the filesystem cannot share blocks'
          }
        >
          {s.method}
        </Badge>
      </Table.Td>
    </CopyRow>
  );
}

/** A volume's point-in-time copies: take, restore from, clone into a new volume, delete. */
export function VolumeSnapshotsSection({ volume, onRestore, onClone, onFailure }: SectionProps) {
  const snapshots = useVolumeSnapshots(volume.project, volume.name);
  const take = useTakeVolumeSnapshot(volume.project, volume.name);
  const remove = useDeleteVolumeSnapshot(volume.project, volume.name);

  const confirmDelete = (s: VolumeSnapshot) =>
    confirmDeleteCopy(
      'snapshot',
      s.id,
      { goes: 'This copy of the volume goes.', affects: 'The volume keeps its data.' },
      remove.mutateAsync,
    );
  const takeSnapshot = () =>
    take.mutate(undefined, {
      onSuccess: (s) =>
        notifyDone(
          `Snapshot of ${volume.name} taken`,
          `${formatBytes(s.size_bytes)}, by ${s.method === 'reflink' ? 'copy-on-write clones' : 'a full copy'}.`,
        ),
      onError: (e) => onFailure(`Could not snapshot ${volume.name}`, e),
    });

  return (
    <VolumeSection
      title="Snapshots"
      button={{ label: 'Take snapshot', icon: IconCamera, loading: take.isPending, onClick: takeSnapshot }}
      query={snapshots}
      empty="No snapshots yet. A snapshot is a copy of the volume at one instant, kept by the engine; restore from it or clone it later."
      table={{ label: `Snapshots of ${volume.name}`, columns: ['Taken', 'Size', 'Frees', 'Method'] }}
    >
      {(s) => (
        <SnapshotRow
          key={s.id}
          snapshot={s}
          volume={volume}
          onRestore={onRestore}
          onClone={onClone}
          onDelete={confirmDelete}
        />
      )}
    </VolumeSection>
  );
}
