import { Badge, Code, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { IconArchive, IconDownload } from '@tabler/icons-react';
import type { VolumeBackup } from '../../../../shared/schemas/volumes';
import { formatBytes } from '../../kit/format';
import { IconAction } from '../../kit/icon-action';
import { useDeleteBackup, useDownloadBackup, useStartBackup, useVolumeBackups } from './use-volumes';
import { CopyActions, CopyRow, VolumeSection, confirmDeleteCopy, type SectionProps } from './volume-section';

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

type RowProps = Omit<SectionProps, 'onFailure'> & {
  backup: VolumeBackup;
  download: ReturnType<typeof useDownloadBackup>;
  onDownload(b: VolumeBackup): void;
  onDelete(b: VolumeBackup): void;
};

/** A done backup's actions: download it, restore the volume from it, clone it into a new volume. */
function DoneActions({ backup: b, volume, download, onDownload, onRestore, onClone }: Omit<RowProps, 'onDelete'>) {
  return (
    <>
      <IconAction
        label={`Download backup ${b.id}`}
        tip="Download the .tar.gz"
        icon={IconDownload}
        loading={download.isPending && download.variables?.id === b.id}
        onClick={() => onDownload(b)}
      />
      <CopyActions kind="backup" id={b.id} volume={volume} onRestore={onRestore} onClone={onClone} />
    </>
  );
}

function BackupRow(props: RowProps) {
  const b = props.backup;
  return (
    <CopyRow
      kind="backup"
      copy={b}
      writing={b.status === 'pending'}
      actions={b.status === 'done' && <DoneActions {...props} />}
      onDelete={() => props.onDelete(b)}
    >
      <Table.Td>
        <BackupState backup={b} />
      </Table.Td>
    </CopyRow>
  );
}

/** A volume's backups: start one (202, then live by volume.backup events), download, restore from, clone, delete. */
export function VolumeBackupsSection({ volume, onRestore, onClone, onFailure }: SectionProps) {
  const backups = useVolumeBackups(volume.project, volume.name);
  const start = useStartBackup(volume.project, volume.name);
  const remove = useDeleteBackup(volume.project, volume.name);
  const download = useDownloadBackup(volume.project, volume.name);

  const confirmDelete = (b: VolumeBackup) => {
    const freed = b.status === 'done' ? `; ${formatBytes(b.size_bytes)} of the data dir is freed` : '';
    const words = { goes: 'Its archive is removed from the data dir.', affects: `The volume keeps its data${freed}.` };
    confirmDeleteCopy('backup', b.id, words, remove.mutateAsync);
  };
  const onDownload = (b: VolumeBackup) =>
    download.mutate(b, { onError: (e) => onFailure(`Could not download backup ${b.id}`, e) });
  const rowProps = { volume, download, onDownload, onRestore, onClone, onDelete: confirmDelete };

  return (
    <VolumeSection
      title="Backups"
      button={{
        label: 'Back up now',
        icon: IconArchive,
        loading: start.isPending,
        onClick: () => start.mutate(undefined, { onError: (e) => onFailure(`Could not back up ${volume.name}`, e) }),
      }}
      note={
        <Text size="xs" c="dimmed">
          A compressed archive in the data dir; the newest {volume.backup_retention} are kept.
        </Text>
      }
      query={backups}
      empty="No backups yet."
      table={{ label: `Backups of ${volume.name}`, columns: ['Started', 'State'] }}
    >
      {(b) => <BackupRow key={b.id} backup={b} {...rowProps} />}
    </VolumeSection>
  );
}
