import { Anchor, Badge, Button, Chip, Group, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconRefresh, IconSearch } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import type { FileChange } from '../../../../shared/schemas/files';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { useFileChanges } from './use-files';

const KINDS = ['added', 'changed', 'deleted'] as const;
const COLORS = { added: 'green', changed: 'yellow', deleted: 'red' };
const SHOWN = 1000;

function ChangeRow({ change, onOpen }: { change: FileChange; onOpen(path: string): void }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Badge color={COLORS[change.kind]} variant="light">
          {change.kind}
        </Badge>
      </Table.Td>
      <Table.Td ff="monospace">
        {change.kind === 'deleted' ? (
          <Text span size="sm" td="line-through" c="dimmed" ff="monospace">
            {change.path}
          </Text>
        ) : (
          <Anchor component="button" type="button" size="sm" ff="monospace" onClick={() => onOpen(change.path)}>
            {change.path}
          </Anchor>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** The changes that pass the filters, at most a thousand; a click opens the entry. */
function ChangesTable({
  matching,
  total,
  onOpen,
}: {
  matching: FileChange[];
  total: number;
  onOpen(path: string): void;
}) {
  return (
    <Paper withBorder>
      <Table aria-label="Changed since base" verticalSpacing={4} fz="sm" highlightOnHover>
        <TableHead columns={[{ label: 'Change', w: 100 }, 'Path']} />
        <Table.Tbody>
          {matching.slice(0, SHOWN).map((c) => (
            <ChangeRow key={`${c.kind}:${c.path}`} change={c} onOpen={onOpen} />
          ))}
          {matching.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={2}>
                <Text size="sm" c="dimmed" ta="center" py="md">
                  {total === 0 ? 'Nothing changed since the base.' : 'No change matches these filters.'}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      {matching.length > SHOWN && (
        <Text size="sm" c="dimmed" p="sm">
          Showing {SHOWN} of {matching.length}; narrow the filter to see the rest.
        </Text>
      )}
    </Paper>
  );
}

/** What differs from the box's base (added, changed, deleted), filtered by kind and path; a click opens the entry. */
export function ChangesView({ project, name, onOpen }: { project: string; name: string; onOpen(path: string): void }) {
  const changes = useFileChanges(project, name, true);
  const [kinds, setKinds] = useState<string[]>([...KINDS]);
  const [filter, setFilter] = useState('');
  const items = changes.data ?? [];
  const counts = useMemo(
    () => Object.fromEntries(KINDS.map((k) => [k, items.filter((c) => c.kind === k).length])),
    [items],
  );
  const matching = useMemo(
    () =>
      items
        .filter((c) => kinds.includes(c.kind) && c.path.toLowerCase().includes(filter.toLowerCase()))
        .sort((a, b) => a.path.localeCompare(b.path)),
    [items, kinds, filter],
  );

  return (
    <Stack>
      <Group justify="space-between" gap="xs">
        <Group gap="xs">
          <Chip.Group multiple value={kinds} onChange={setKinds}>
            {KINDS.map((k) => (
              <Chip key={k} value={k} color={COLORS[k]} size="sm">
                {k} ({counts[k] ?? 0})
              </Chip>
            ))}
          </Chip.Group>
          <TextInput
            aria-label="Filter changed paths"
            placeholder="Filter paths"
            leftSection={<IconSearch size={14} />}
            size="xs"
            value={filter}
            onChange={(e) => setFilter(e.currentTarget.value)}
          />
        </Group>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconRefresh size={14} />}
          onClick={() => void changes.refetch()}
          loading={changes.isFetching}
        >
          Refresh
        </Button>
      </Group>
      <QueryStates query={changes} what="the changes" loading="Comparing with the base…">
        {(all) => <ChangesTable matching={matching} total={all.length} onOpen={onOpen} />}
      </QueryStates>
    </Stack>
  );
}
