import {
  ActionIcon,
  Alert,
  Anchor,
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
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { Volume } from '../../../../shared/schemas/volumes';
import { describeError } from '../../api/session';
import { useDeleteVolume, useVolumes } from '../../api/volumes';
import { notifyDone } from '../../app/notify';
import { useProject } from '../../app/project';
import { CreateVolumeDialog, type ClonePreset } from './create-volume-dialog';
import { VolumeDrawer } from './volume-drawer';
import { VolumeMounts, VolumeSize, When } from './volume-format';

/** The project's data volumes: list, create or clone, delete, and one volume's snapshots and backups in a drawer. */
export function VolumesPage() {
  const project = useProject();
  const volumes = useVolumes(project);
  const remove = useDeleteVolume(project);
  const [creating, setCreating] = useState<{ preset: ClonePreset | null } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [failure, setFailure] = useState<{ name: string; error: unknown } | null>(null);
  const shown = volumes.data?.find((v) => v.name === open) ?? null;

  const confirmDelete = (volume: Volume) =>
    modals.openConfirmModal({
      title: `Delete the volume ${volume.name}?`,
      children: (
        <Text size="sm">
          Its data, its snapshots and its backups go with it. It is refused while a box mounts it: detach it from those
          boxes first.
        </Text>
      ),
      labels: { confirm: 'Delete volume', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        setFailure(null);
        remove.mutate(volume, {
          onSuccess: () => notifyDone(`Deleted ${volume.name}`, 'The volume and its copies are gone.'),
          onError: (error) => setFailure({ name: volume.name, error }),
        });
      },
    });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Volumes in {project}</Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating({ preset: null })}>
          Create volume
        </Button>
      </Group>
      {failure && (
        <Alert
          color="red"
          role="alert"
          title={`Could not delete ${failure.name}`}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setFailure(null)}
        >
          {describeError(failure.error)}
        </Alert>
      )}
      {volumes.isPending && (
        <Center role="status">
          <Loader size="sm" mr="sm" /> Loading volumes…
        </Center>
      )}
      {volumes.isError && (
        <Alert color="red" role="alert" title="Could not load the volumes">
          {describeError(volumes.error)}
        </Alert>
      )}
      {volumes.data &&
        (volumes.data.length === 0 ? (
          <Text>
            No volumes in {project} yet. A volume holds data that outlives any box: create one, then mount it in boxes
            at a path.
          </Text>
        ) : (
          <Table aria-label="Volumes" striped verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Size</Table.Th>
                <Table.Th>Mounted by</Table.Th>
                <Table.Th>Backups kept</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {volumes.data.map((v) => (
                <Table.Tr key={v.name}>
                  <Table.Th scope="row">
                    <Anchor
                      component="button"
                      type="button"
                      fw={600}
                      onClick={() => setOpen(v.name)}
                      aria-label={v.name}
                      title={`Open ${v.name}: snapshots and backups`}
                    >
                      {v.name}
                    </Anchor>
                  </Table.Th>
                  <Table.Td>
                    <VolumeSize volume={v} />
                  </Table.Td>
                  <Table.Td>
                    <VolumeMounts volume={v} />
                  </Table.Td>
                  <Table.Td>{v.backup_retention}</Table.Td>
                  <Table.Td>
                    <When at={v.created_at} />
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={`Delete ${v.name}`}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete volume ${v.name}`}
                        onClick={() => confirmDelete(v)}
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
      <VolumeDrawer volume={shown} onClose={() => setOpen(null)} onClone={(preset) => setCreating({ preset })} />
      <CreateVolumeDialog
        project={project}
        opened={creating !== null}
        preset={creating?.preset}
        onClose={() => setCreating(null)}
      />
    </Stack>
  );
}
