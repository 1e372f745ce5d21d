import { Drawer, SimpleGrid, Stack, Text } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import type { Volume } from '../../../../shared/schemas/volumes';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { FailureAlert, type Failure } from '../../kit/failure-alert';
import { Time } from '../../kit/time';
import { useRestoreVolume } from './use-volumes';
import { VolumeBackupsSection } from './volume-backups-section';
import type { ClonePreset } from './volume-form';
import { VolumeMounts, VolumeSize } from './volume-format';
import type { RestoreSource } from './volume-section';
import { VolumeSnapshotsSection } from './volume-snapshots-section';

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
  const [failure, setFailure] = useState<Failure | null>(null);
  const restore = useRestoreVolume(volume?.project ?? '', volume?.name ?? '');
  useEffect(() => setFailure(null), [volume?.name]);

  const onFailure = (title: string, error: unknown) => setFailure({ title, error });
  const confirmRestore = (source: RestoreSource, what: string) => {
    if (!volume) return;
    confirmDestroy({
      title: `Restore ${volume.name} from ${what}?`,
      goes: `The volume’s data is replaced by the ${what.split(' ')[0]}’s.`,
      affects: 'It is refused while a box that mounts it is running: stop those boxes (or detach the volume) first.',
      confirm: 'Restore',
      tone: 'change',
      run: () => restore.mutateAsync(source),
      onDone: () => notifyDone(`Restored ${volume.name}`, `It holds what ${what} held.`),
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
                <Time at={volume.created_at} />
              </Text>
            </Fact>
          </SimpleGrid>
          <FailureAlert failure={failure} onDismiss={() => setFailure(null)} />
          <VolumeSnapshotsSection volume={volume} onRestore={confirmRestore} onClone={onClone} onFailure={onFailure} />
          <VolumeBackupsSection volume={volume} onRestore={confirmRestore} onClone={onClone} onFailure={onFailure} />
        </Stack>
      )}
    </Drawer>
  );
}
