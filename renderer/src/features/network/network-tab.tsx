import { Badge, Button, Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconPencil } from '@tabler/icons-react';
import { useState } from 'react';
import type { Box } from '../../../../shared/schemas/box';
import type { EgressRecord } from '../../../../shared/schemas/egress';
import type { DetailTabProps } from '../../app/feature-module';
import { formatBytes } from '../../kit/format';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';
import { INTERNET_LABELS } from '../boxes/network-fields';
import { NetworkDialog } from './network-dialog';
import { useEgress } from './use-egress';

/** The policy in words: the internet, the hosts when only those, and this computer. */
function Policy({ box, onEdit }: { box: Box; onEdit(): void }) {
  const { egress, allow, host } = box.network;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="network-policy-heading">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} id="network-policy-heading">
            Network
          </Title>
          <Button size="xs" variant="light" leftSection={<IconPencil size={14} />} onClick={onEdit}>
            Edit network
          </Button>
        </Group>
        <Text size="sm">
          Internet: <strong>{INTERNET_LABELS[egress].toLowerCase()}</strong>
        </Text>
        {egress === 'allowlist' && (
          <Group gap={6} aria-label="Allowed hosts">
            {allow.length ? (
              allow.map((a) => <Code key={a}>{a}</Code>)
            ) : (
              <Text size="sm" c="dimmed">
                No host yet: nothing leaves the box.
              </Text>
            )}
          </Group>
        )}
        <Text size="sm">
          This computer: <strong>{host && egress !== 'none' ? 'reachable' : 'closed'}</strong>
        </Text>
        <Text size="xs" c="dimmed">
          Boxes of {box.project} reach each other by name; other projects’ boxes are closed. Enforced by the packet
          filter, so programs that ignore proxy settings are held to it too.
        </Text>
      </Stack>
    </Paper>
  );
}

function ConnectionsTable({ records }: { records: EgressRecord[] }) {
  return (
    <Table aria-label="Recent connections" striped verticalSpacing="xs">
      <TableHead columns={['Verdict', 'Host', 'Port', 'Protocol', 'Bytes', 'Time']} />
      <Table.Tbody>
        {[...records].reverse().map((r) => (
          <Table.Tr key={r.id}>
            <Table.Td>
              <Badge color={r.allowed ? 'teal' : 'red'} variant="light">
                {r.allowed ? 'allowed' : 'denied'}
              </Badge>
            </Table.Td>
            <Table.Th scope="row" fw="normal">
              <Text size="sm" title={r.address && r.address !== r.host ? r.address : undefined}>
                {r.host}
              </Text>
            </Table.Th>
            <Table.Td>{r.port || '—'}</Table.Td>
            <Table.Td>{r.protocol.toUpperCase()}</Table.Td>
            <Table.Td>{r.allowed ? formatBytes(r.bytes) : '—'}</Table.Td>
            <Table.Td>
              <Time at={r.at} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** A box's network: its policy (edited live) and its recent connections, kept current by the event stream. */
export function NetworkTab({ box }: DetailTabProps) {
  const [editing, setEditing] = useState(false);
  const egress = useEgress(box.project, box.name);
  return (
    <Stack gap="md" maw={1200}>
      <Policy box={box} onEdit={() => setEditing(true)} />
      <Paper withBorder p="md" component="section" aria-labelledby="connections-heading">
        <Stack gap="xs">
          <Title order={4} id="connections-heading">
            Recent connections
          </Title>
          <Text size="xs" c="dimmed">
            Newest first, the last 500: a denied attempt at once, an allowed connection once it ends, with its bytes
            both ways.
          </Text>
          <QueryStates
            query={egress}
            what="the recent connections"
            empty={
              <Text size="sm" c="dimmed">
                No connections recorded yet.
              </Text>
            }
          >
            {(records) => <ConnectionsTable records={records} />}
          </QueryStates>
        </Stack>
      </Paper>
      <NetworkDialog box={box} opened={editing} onClose={() => setEditing(false)} />
    </Stack>
  );
}
