import { Alert, Drawer, Group, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useEffect, useState, type ReactNode } from 'react';
import type { Volume } from '../../../../shared/schemas/volumes';
import { describeError } from '../../api/session';
import { useRestoreVolume } from '../../api/volumes';
import { notifyDone } from '../../app/notify';
import type { ClonePreset } from './create-volume-dialog';
import { VolumeBackupsSection } from './volume-backups-section';
import { VolumeMounts, VolumeSize, When } from './volume-format';
import { VolumeSnapshotsSection } from './volume-snapshots-section';

type Source = { snapshot_id: string } | { backup_id: string };

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      {children}
    </Stack>
  );
}

/** One volume: what it holds and who mounts it, its snapshots and its backups. */
export function VolumeDrawer({
  volume,
  onClose,
  onClone,
}: {
  volume: Volume | null;
  onClose(): void;
  onClone(preset: ClonePreset): void;
}) {
  const [failure, setFailure] = useState<{ title: string; error: unknown } | null>(null);
  const restore = useRestoreVolume(volume?.project ?? '', volume?.name ?? '');
  useEffect(() => {
    setFailure(null);
    restore.reset();
  }, [volume?.name]);

  const onFailure = (title: string, error: unknown) => setFailure({ title, error });
  const confirmRestore = (source: Source, what: string) => {
    if (!volume) return;
    modals.openConfirmModal({
      title: `Restore ${volume.name} from ${what}?`,
      children: (
        <Text size="sm">
          The volume’s data is replaced by the {what.split(' ')[0]}’s. It is refused while a box that mounts it is
          running: stop those boxes (or detach the volume) first.
        </Text>
      ),
      labels: { confirm: 'Restore', cancel: 'Cancel' },
      confirmProps: { color: 'orange' },
      onConfirm: () => {
        setFailure(null);
        restore.mutate(source, {
          onSuccess: () => notifyDone(`Restored ${volume.name}`, `It holds what ${what} held.`),
          onError: (e) => onFailure(`Could not restore ${volume.name}`, e),
        });
      },
    });
  };

  return (
    <Drawer
      opened={volume !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={volume ? `Volume ${volume.name}` : ''}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {volume && (
        <Stack gap="lg">
          <SimpleGrid cols={3}>
            <Fact label="Size">
              <VolumeSize volume={volume} />
            </Fact>
            <Fact label="Mounted by">
              <VolumeMounts volume={volume} />
            </Fact>
            <Fact label="Created">
              <Text size="sm">
                <When at={volume.created_at} />
              </Text>
            </Fact>
          </SimpleGrid>
          {restore.isPending && (
            <Group gap="xs" role="status" aria-label="Restoring">
              <Loader size="xs" />
              <Text size="sm">Restoring {volume.name}: copying the data back…</Text>
            </Group>
          )}
          {failure && (
            <Alert
              color="red"
              role="alert"
              title={failure.title}
              withCloseButton
              closeButtonLabel="Dismiss"
              onClose={() => setFailure(null)}
            >
              {describeError(failure.error)}
            </Alert>
          )}
          <VolumeSnapshotsSection volume={volume} onRestore={confirmRestore} onClone={onClone} onFailure={onFailure} />
          <VolumeBackupsSection volume={volume} onRestore={confirmRestore} onClone={onClone} onFailure={onFailure} />
        </Stack>
      )}
    </Drawer>
  );
}
