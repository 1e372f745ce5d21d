import { Badge, Code, Table } from '@mantine/core';
import { useRegions } from '../../api/system';
import { formatBytes } from '../../kit/format';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';

/** The engines the core drives, each a region, with their health (GET /v1/regions). */
export function RegionsPanel() {
  const regions = useRegions();
  return (
    <QueryStates query={regions} what="the regions">
      {({ items }) => (
        <Table aria-label="Regions" maw={960}>
          <TableHead columns={['Region', 'Engine', 'Health', 'Boxes', 'CPUs', 'Memory', 'At']} />
          <Table.Tbody>
            {items.map((r, i) => (
              <Table.Tr key={r.name}>
                <Table.Th scope="row">
                  {r.name}
                  {i === 0 ? ' (default)' : ''}
                </Table.Th>
                <Table.Td>{`${r.engine.name} ${r.engine.version ?? ''}`}</Table.Td>
                <Table.Td>
                  <Badge color={r.engine.up ? 'green' : 'red'} variant="light" title={r.engine.reason ?? undefined}>
                    {r.engine.up ? 'up' : 'away'}
                  </Badge>
                  {r.engine.up ? null : ` ${r.engine.reason ?? ''}`}
                </Table.Td>
                <Table.Td>{r.boxes}</Table.Td>
                <Table.Td>{r.cpus ?? '—'}</Table.Td>
                <Table.Td>{r.memory_bytes === null ? '—' : formatBytes(r.memory_bytes)}</Table.Td>
                <Table.Td>
                  <Code>{r.engine.url}</Code> ({r.engine.found_by})
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </QueryStates>
  );
}
