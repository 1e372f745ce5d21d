import { Alert, Code, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { IconInfoCircle, IconUnlink } from '@tabler/icons-react';
import type { DetailTabProps } from '../../app/feature-module';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { IconAction } from '../../kit/icon-action';
import { TableHead } from '../../kit/table-head';
import { AttachVolumeForm } from './attach-volume-form';
import { useAttachVolume, useDetachVolume } from './use-volumes';

const RESTART_NOTE =
  'Attaching or detaching recreates the box’s container: a running box restarts (its root files are kept, running processes are not).';

/** The box's data volumes: attach one at a path (read-only or not), detach one. */
export function VolumeMountsTab({ box }: DetailTabProps) {
  const attach = useAttachVolume(box.project);
  const detach = useDetachVolume(box.project);
  const mounts = box.data_mounts ?? [];

  const confirmDetach = (name: string) =>
    confirmDestroy({
      title: `Detach ${name} from ${box.name}?`,
      goes: `${box.name} no longer sees ${name}; the volume keeps its data and can be attached again.`,
      affects: RESTART_NOTE,
      confirm: 'Detach',
      tone: 'change',
      run: () => detach.mutateAsync({ name, box: box.name }),
      onDone: () => notifyDone(`Detached ${name}`, `${box.name} no longer mounts it.`),
    });

  const busy = attach.isPending || detach.isPending;
  return (
    <Stack gap="md" maw={900}>
      <Alert variant="light" color="blue" icon={<IconInfoCircle size={18} />} title="A running box restarts">
        {RESTART_NOTE}
      </Alert>
      {busy && (
        <Group gap="xs" role="status" aria-label="Changing mounts">
          <Loader size="xs" />
          <Text size="sm">
            {attach.isPending ? `Attaching ${attach.variables?.name}` : `Detaching ${detach.variables?.name}`}:
            recreating {box.name}’s container…
          </Text>
        </Group>
      )}
      {mounts.length === 0 ? (
        <Text size="sm" c="dimmed">
          {box.name} mounts no data volume.
        </Text>
      ) : (
        <Table aria-label={`Volumes mounted in ${box.name}`} striped>
          <TableHead columns={['Volume', 'Path', 'Access']} actions />
          <Table.Tbody>
            {mounts.map((m) => (
              <Table.Tr key={m.name}>
                <Table.Th scope="row">{m.name}</Table.Th>
                <Table.Td>
                  <Code>{m.path}</Code>
                </Table.Td>
                <Table.Td>{m.read_only ? 'read-only' : 'read-write'}</Table.Td>
                <Table.Td>
                  <IconAction
                    label={`Detach ${m.name}`}
                    tip="Detach"
                    icon={IconUnlink}
                    color="orange"
                    disabled={busy}
                    onClick={() => confirmDetach(m.name)}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <AttachVolumeForm box={box} attach={attach} disabled={detach.isPending} />
    </Stack>
  );
}
