import { Badge, Group, Table } from '@mantine/core';
import { useState } from 'react';
import type { Token } from '../../../../shared/schemas/system';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { CreateButton } from '../../kit/create-button';
import { DeleteAction } from '../../kit/icon-action';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';
import { TitleBar } from '../../kit/title-bar';
import { CreateTokenDialog } from './create-token-dialog';
import { useRevokeToken, useTokens } from './use-tokens';

function TokenRow({ token: t, onRevoke }: { token: Token; onRevoke(t: Token): void }) {
  return (
    <Table.Tr>
      <Table.Th scope="row">
        {t.name}
        {t.current && (
          <Badge ml="xs" variant="outline" size="sm" color="orange">
            this window
          </Badge>
        )}
      </Table.Th>
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
      <Table.Td>
        <Time at={t.created_at} />
      </Table.Td>
      <Table.Td>{t.last_used_at ? <Time at={t.last_used_at} relative /> : 'never'}</Table.Td>
      <Table.Td>
        <DeleteAction label={`Revoke ${t.name}`} tip="Revoke" onClick={() => onRevoke(t)} />
      </Table.Td>
    </Table.Tr>
  );
}

/** API tokens: create (the secret is shown once), list, revoke. */
export function TokensPanel({ headingId }: { headingId: string }) {
  const tokens = useTokens();
  const revoke = useRevokeToken();
  const [creating, setCreating] = useState(false);

  const confirmRevoke = (t: Token) =>
    confirmDestroy({
      title: `Revoke the token ${t.name}?`,
      goes: t.current
        ? 'This window is signed in with it: it is signed out at once, and so is every other client using it. To get an admin token back, restart the core with --new-admin-token: it writes a new one to <data dir>/token.'
        : 'Every client using it is refused from now on.',
      affects: t.project ? `It could reach project ${t.project} only.` : 'It could reach every project.',
      confirm: 'Revoke token',
      run: () => revoke.mutateAsync(t.id),
      onDone: () => notifyDone(`Revoked ${t.name}`, 'The token no longer works.'),
    });

  return (
    <>
      <TitleBar order={3} title="Tokens" id={headingId}>
        <CreateButton size="xs" label="Create token" onClick={() => setCreating(true)} />
      </TitleBar>
      <QueryStates query={tokens} what="the tokens">
        {(d) => (
          <Table aria-label="Tokens" striped mt="xs">
            <TableHead columns={['Name', 'Scopes', 'Project', 'Created', 'Last used']} actions={60} />
            <Table.Tbody>
              {d.items.map((t) => (
                <TokenRow key={t.id} token={t} onRevoke={confirmRevoke} />
              ))}
            </Table.Tbody>
          </Table>
        )}
      </QueryStates>
      <CreateTokenDialog opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
