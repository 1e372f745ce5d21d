import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Center,
  Group,
  Loader,
  Table,
  Text,
  Title,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import type { Token } from '../../../../shared/schemas/system';
import { describeError } from '../../api/session';
import { useRevokeToken, useTokens } from '../../api/system';
import { notifyDone } from '../../app/notify';
import { CreateTokenDialog } from './create-token-dialog';

/** API tokens: create (the secret is shown once), list, revoke. */
export function TokensPanel({ headingId }: { headingId: string }) {
  const tokens = useTokens();
  const revoke = useRevokeToken();
  const [creating, setCreating] = useState(false);

  const confirmRevoke = (t: Token) =>
    modals.openConfirmModal({
      title: `Revoke the token ${t.name}?`,
      children: <Text size="sm">Every client using it is refused from now on.</Text>,
      labels: { confirm: 'Revoke token', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        revoke.mutate(t.id, {
          onSuccess: () => notifyDone(`Revoked ${t.name}`, 'The token no longer works.'),
          onError: (err) => notifyDone(`Could not revoke ${t.name}`, describeError(err), false),
        }),
    });

  return (
    <>
      <Group justify="space-between" mb="xs">
        <Title order={3} size="h4" id={headingId}>
          Tokens
        </Title>
        <Button size="xs" leftSection={<IconPlus size={14} />} onClick={() => setCreating(true)}>
          Create token
        </Button>
      </Group>
      {tokens.isPending && (
        <Center role="status">
          <Loader size="sm" mr="sm" /> Loading tokens…
        </Center>
      )}
      {tokens.isError && (
        <Alert color="red" role="alert" title="Could not list the tokens">
          {describeError(tokens.error)}
        </Alert>
      )}
      {tokens.data && (
        <Table aria-label="Tokens" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Scopes</Table.Th>
              <Table.Th>Project</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th w={60}>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.data.items.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Th scope="row">{t.name}</Table.Th>
                <Table.Td>
                  <Group gap={4}>
                    {t.scopes.map((s) => (
                      <Badge key={s} variant="light" size="sm">
                        {s}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>{t.project ?? 'all projects'}</Table.Td>
                <Table.Td>{new Date(t.created_at).toLocaleString()}</Table.Td>
                <Table.Td>{t.last_used_at ? new Date(t.last_used_at).toLocaleString() : 'never'}</Table.Td>
                <Table.Td>
                  <Tooltip label="Revoke">
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Revoke ${t.name}`}
                      onClick={() => confirmRevoke(t)}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <CreateTokenDialog opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
