import {
  ActionIcon,
  Alert,
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
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { Base } from '../../../../shared/schemas/system';
import { useDeleteBase } from '../../api/bases';
import { describeError } from '../../api/session';
import { useBases } from '../../api/system';
import { notifyDone } from '../../app/notify';
import { formatBytes } from '../snapshots/format';
import { CreateBaseDialog } from './create-base-dialog';
import { ImportBasePanel } from './import-base-panel';

/** Where a base's root comes from, in words. */
function sourceOf(base: Base) {
  if (base.from_snapshot)
    return (
      <>
        snapshot <Code>{base.from_snapshot}</Code>
      </>
    );
  // An imported tar has no image name, only the engine's id.
  if (base.image.startsWith('sha256:'))
    return (
      <>
        imported tar <Code title={base.image}>{base.image.slice(0, 19)}</Code>
      </>
    );
  return <Code>{base.image}</Code>;
}

/** The base templates boxes start from: list, create, import a tar, delete. */
export function BasesPage() {
  const bases = useBases();
  const remove = useDeleteBase();
  const [creating, setCreating] = useState(false);
  const [failure, setFailure] = useState<{ name: string; error: unknown } | null>(null);

  const confirmDelete = (base: Base) =>
    modals.openConfirmModal({
      title: `Delete the base ${base.name}?`,
      children: (
        <Text size="sm">Boxes and snapshots that start from it keep it: the delete is refused while they exist.</Text>
      ),
      labels: { confirm: 'Delete base', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        setFailure(null);
        remove.mutate(base.name, {
          onSuccess: () => notifyDone(`Deleted ${base.name}`, 'The base is gone.'),
          onError: (error) => setFailure({ name: base.name, error }),
        });
      },
    });

  return (
    <Stack>
      <Group justify="space-between" maw={900}>
        <Title order={2}>Bases</Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          Create base
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
          maw={900}
        >
          {describeError(failure.error)}
        </Alert>
      )}
      {bases.isPending && (
        <Center role="status">
          <Loader size="sm" mr="sm" /> Loading bases…
        </Center>
      )}
      {bases.isError && (
        <Alert color="red" role="alert" title="Could not load the bases">
          {describeError(bases.error)}
        </Alert>
      )}
      {bases.data &&
        (bases.data.items.length === 0 ? (
          <Text>
            No bases yet. Create one from a snapshot, a box or an image, or import a root filesystem tar below.
          </Text>
        ) : (
          <Table aria-label="Bases" striped maw={900}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Source</Table.Th>
                <Table.Th>Size</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {bases.data.items.map((base) => (
                <Table.Tr key={base.name}>
                  <Table.Th scope="row">{base.name}</Table.Th>
                  <Table.Td>{sourceOf(base)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatBytes(base.size_bytes)}</Table.Td>
                  <Table.Td>
                    <time dateTime={base.created_at}>{new Date(base.created_at).toLocaleString()}</time>
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={`Delete ${base.name}`}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete base ${base.name}`}
                        onClick={() => confirmDelete(base)}
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
      <ImportBasePanel />
      <CreateBaseDialog opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
