import {
  ActionIcon,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCamera, IconCopy, IconRestore, IconTrash } from '@tabler/icons-react';
import type { Volume, VolumeSnapshot } from '../../../../shared/schemas/volumes';
import { describeError } from '../../api/session';
import { useDeleteVolumeSnapshot, useTakeVolumeSnapshot, useVolumeSnapshots } from '../../api/volumes';
import { notifyDone } from '../../app/notify';
import { formatBytes } from '../snapshots/format';
import type { ClonePreset } from './create-volume-dialog';
import { When } from './volume-format';

interface Props {
  volume: Volume;
  onRestore(source: { snapshot_id: string } | { backup_id: string }, what: string): void;
  onClone(preset: ClonePreset): void;
  onFailure(title: string, error: unknown): void;
}

/** A volume's point-in-time copies: take, restore from, clone into a new volume, delete. */
export function VolumeSnapshotsSection({ volume, onRestore, onClone, onFailure }: Props) {
  const snapshots = useVolumeSnapshots(volume.project, volume.name);
  const take = useTakeVolumeSnapshot(volume.project, volume.name);
  const remove = useDeleteVolumeSnapshot(volume.project, volume.name);

  const confirmDelete = (s: VolumeSnapshot) =>
    modals.openConfirmModal({
      title: `Delete snapshot ${s.id}?`,
      children: <Text size="sm">The volume keeps its data; only this copy goes.</Text>,
      labels: { confirm: 'Delete snapshot', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => remove.mutate(s.id, { onError: (e) => onFailure(`Could not delete snapshot ${s.id}`, e) }),
    });

  return (
    <Stack gap="xs" component="section" aria-label="Snapshots">
      <Group justify="space-between">
        <Title order={3} size="h4">
          Snapshots
        </Title>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconCamera size={14} />}
          loading={take.isPending}
          onClick={() =>
            take.mutate(undefined, {
              onSuccess: (s) =>
                notifyDone(
                  `Snapshot of ${volume.name} taken`,
                  `${formatBytes(s.size_bytes)}, by ${s.method === 'reflink' ? 'copy-on-write clones' : 'a full copy'}.`,
                ),
              onError: (e) => onFailure(`Could not snapshot ${volume.name}`, e),
            })
          }
        >
          Take snapshot
        </Button>
      </Group>
      {snapshots.isPending && (
        <Center role="status">
          <Loader size="xs" mr="xs" /> Loading snapshots…
        </Center>
      )}
      {snapshots.isError && (
        <Text size="sm" c="red" role="alert">
          Could not load the snapshots: {describeError(snapshots.error)}
        </Text>
      )}
      {snapshots.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          No snapshots yet. A snapshot is a copy of the volume at one instant, kept by the engine; restore from it or
          clone it later.
        </Text>
      )}
      {!!snapshots.data?.length && (
        <Table aria-label={`Snapshots of ${volume.name}`} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Taken</Table.Th>
              <Table.Th>Size</Table.Th>
              <Table.Th>Method</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {snapshots.data.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Th scope="row" fw="normal" aria-label={s.id}>
                  <When at={s.created_at} />
                </Table.Th>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatBytes(s.size_bytes)}</Table.Td>
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
                <Table.Td>
                  <Group gap={2} wrap="nowrap" justify="flex-end">
                    <Tooltip label="Restore the volume from this snapshot">
                      <ActionIcon
                        variant="subtle"
                        aria-label={`Restore ${volume.name} from snapshot ${s.id}`}
                        onClick={() => onRestore({ snapshot_id: s.id }, `snapshot ${s.id}`)}
                      >
                        <IconRestore size={16} />
                      </ActionIcon>
                    </Tooltip>
                    <Tooltip label="Clone into a new volume">
                      <ActionIcon
                        variant="subtle"
                        aria-label={`Clone snapshot ${s.id} into a new volume`}
                        onClick={() => onClone({ kind: 'snapshot', id: s.id, volume: volume.name })}
                      >
                        <IconCopy size={16} />
                      </ActionIcon>
                    </Tooltip>
                    <Tooltip label="Delete">
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete snapshot ${s.id}`}
                        onClick={() => confirmDelete(s)}
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
