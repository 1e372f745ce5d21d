import { Code, Table, Text } from '@mantine/core';
import { useState } from 'react';
import type { Secret } from '../../../../shared/schemas/secrets';
import { notifyDone } from '../../app/notify';
import { useDeleteSecret, useSecrets } from '../../api/secrets';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { CreateButton } from '../../kit/create-button';
import { DeleteAction } from '../../kit/icon-action';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';
import { TitleBar } from '../../kit/title-bar';
import { AddSecretDialog } from './add-secret-dialog';

function SecretRow({ secret: s, onRemove }: { secret: Secret; onRemove(s: Secret): void }) {
  return (
    <Table.Tr>
      <Table.Th scope="row">{s.name}</Table.Th>
      <Table.Td>{s.hosts.join(', ')}</Table.Td>
      <Table.Td>{s.header ?? 'Authorization: Bearer'}</Table.Td>
      <Table.Td>
        <Code>${s.env}</Code>
      </Table.Td>
      <Table.Td>
        <Time at={s.created_at} />
      </Table.Td>
      <Table.Td>
        <DeleteAction label={`Remove ${s.name}`} tip="Remove" onClick={() => onRemove(s)} />
      </Table.Td>
    </Table.Tr>
  );
}

/** Secrets: add (the value in a password field, write-only), list (never values), remove. */
export function SecretsPanel({ headingId }: { headingId: string }) {
  const secrets = useSecrets();
  const remove = useDeleteSecret();
  const [adding, setAdding] = useState(false);
  const confirmRemove = (s: Secret) =>
    confirmDestroy({
      title: `Remove the secret ${s.name}?`,
      goes: 'Its value is deleted from this computer. A box still given it must be edited first.',
      affects: `Requests to ${s.hosts.join(', ')} no longer get it.`,
      confirm: 'Remove secret',
      run: () => remove.mutateAsync(s.name),
      onDone: () => notifyDone(`Removed ${s.name}`, 'Its value is gone.'),
    });
  return (
    <>
      <TitleBar order={3} title="Secrets" id={headingId}>
        <CreateButton size="xs" label="Add secret" onClick={() => setAdding(true)} />
      </TitleBar>
      <Text size="sm" c="dimmed" mt={4}>
        A box given a secret sees only a placeholder; Boxdesk&apos;s egress proxy puts the value into the box&apos;s
        requests to the secret&apos;s hosts, and nowhere else.
      </Text>
      <QueryStates query={secrets} what="the secrets">
        {(d) =>
          d.items.length ? (
            <Table aria-label="Secrets" striped mt="xs">
              <TableHead columns={['Name', 'Hosts', 'Header', 'In boxes as', 'Added']} actions={60} />
              <Table.Tbody>
                {d.items.map((s) => (
                  <SecretRow key={s.name} secret={s} onRemove={confirmRemove} />
                ))}
              </Table.Tbody>
            </Table>
          ) : (
            <Text size="sm" mt="xs">
              No secrets yet.
            </Text>
          )
        }
      </QueryStates>
      <AddSecretDialog opened={adding} onClose={() => setAdding(false)} />
    </>
  );
}
