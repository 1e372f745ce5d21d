import {
  ActionIcon,
  Badge,
  Button,
  Center,
  Code,
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
import { IconArchive, IconCopy, IconDownload, IconRestore, IconTrash } from '@tabler/icons-react';
import type { Volume, VolumeBackup } from '../../../../shared/schemas/volumes';
import { describeError } from '../../api/session';
import { useDeleteBackup, useDownloadBackup, useStartBackup, useVolumeBackups } from '../../api/volumes';
import { formatBytes } from '../snapshots/format';
import type { ClonePreset } from './create-volume-dialog';
import { When } from './volume-format';

interface Props {
  volume: Volume;
  onRestore(source: { snapshot_id: string } | { backup_id: string }, what: string): void;
  onClone(preset: ClonePreset): void;
  onFailure(title: string, error: unknown): void;
}

/** Where a backup stands: written (pending), done with its archive's size and sha256, or failed and why. */
function BackupState({ backup }: { backup: VolumeBackup }) {
  if (backup.status === 'pending')
    return (
      <Group gap="xs" role="status" aria-label={`Backup ${backup.id} in progress`}>
        <Loader size="xs" />
        <Text size="sm">Writing the archive…</Text>
      </Group>
    );
  if (backup.status === 'failed')
    return (
      <Stack gap={2}>
        <Badge color="red" variant="light" size="sm">
          failed
        </Badge>
        <Text size="xs" c="red">
          {backup.reason ?? 'no reason given'}. Start another backup; the core’s log says more.
        </Text>
      </Stack>
    );
  return (
    <Stack gap={2}>
      <Group gap="xs">
        <Badge color="green" variant="light" size="sm">
          done
        </Badge>
        <Text size="sm">{formatBytes(backup.size_bytes)} .tar.gz</Text>
      </Group>
      <Text size="xs" c="dimmed">
        sha256{' '}
        <Code aria-label={`sha256 of backup ${backup.id}`} style={{ wordBreak: 'break-all' }}>
          {backup.sha256}
        </Code>
      </Text>
    </Stack>
  );
}

/** A volume's backups: start one (202, then live by volume.backup events), download, restore from, clone, delete. */
export function VolumeBackupsSection({ volume, onRestore, onClone, onFailure }: Props) {
  const backups = useVolumeBackups(volume.project, volume.name);
  const start = useStartBackup(volume.project, volume.name);
  const remove = useDeleteBackup(volume.project, volume.name);
  const download = useDownloadBackup(volume.project, volume.name);

  const confirmDelete = (b: VolumeBackup) =>
    modals.openConfirmModal({
      title: `Delete backup ${b.id}?`,
      children: <Text size="sm">Its archive is removed from the data dir. The volume keeps its data.</Text>,
      labels: { confirm: 'Delete backup', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => remove.mutate(b.id, { onError: (e) => onFailure(`Could not delete backup ${b.id}`, e) }),
    });

  return (
    <Stack gap="xs" component="section" aria-label="Backups">
      <Group justify="space-between">
        <Title order={3} size="h4">
          Backups
        </Title>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconArchive size={14} />}
          loading={start.isPending}
          onClick={() => start.mutate(undefined, { onError: (e) => onFailure(`Could not back up ${volume.name}`, e) })}
        >
          Back up now
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        A compressed archive in the data dir; the newest {volume.backup_retention} are kept.
      </Text>
      {backups.isPending && (
        <Center role="status">
          <Loader size="xs" mr="xs" /> Loading backups…
        </Center>
      )}
      {backups.isError && (
        <Text size="sm" c="red" role="alert">
          Could not load the backups: {describeError(backups.error)}
        </Text>
      )}
      {backups.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          No backups yet.
        </Text>
      )}
      {!!backups.data?.length && (
        <Table aria-label={`Backups of ${volume.name}`} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Started</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {backups.data.map((b) => (
              <Table.Tr key={b.id}>
                <Table.Th scope="row" fw="normal" aria-label={b.id} style={{ whiteSpace: 'nowrap' }}>
                  <When at={b.created_at} />
                </Table.Th>
                <Table.Td>
                  <BackupState backup={b} />
                </Table.Td>
                <Table.Td>
                  <Group gap={2} wrap="nowrap" justify="flex-end">
                    {b.status === 'done' && (
                      <>
                        <Tooltip label="Download the .tar.gz">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Download backup ${b.id}`}
                            loading={download.isPending && download.variables?.id === b.id}
                            onClick={() =>
                              download.mutate(b, { onError: (e) => onFailure(`Could not download backup ${b.id}`, e) })
                            }
                          >
                            <IconDownload size={16} />
                          </ActionIcon>
                        </Tooltip>
                        <Tooltip label="Restore the volume from this backup">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Restore ${volume.name} from backup ${b.id}`}
                            onClick={() => onRestore({ backup_id: b.id }, `backup ${b.id}`)}
                          >
                            <IconRestore size={16} />
                          </ActionIcon>
                        </Tooltip>
                        <Tooltip label="Clone into a new volume">
                          <ActionIcon
                            variant="subtle"
                            aria-label={`Clone backup ${b.id} into a new volume`}
                            onClick={() => onClone({ kind: 'backup', id: b.id, volume: volume.name })}
                          >
                            <IconCopy size={16} />
                          </ActionIcon>
                        </Tooltip>
                      </>
                    )}
                    <Tooltip label={b.status === 'pending' ? 'It can go once written' : 'Delete'}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete backup ${b.id}`}
                        disabled={b.status === 'pending'}
                        onClick={() => confirmDelete(b)}
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
