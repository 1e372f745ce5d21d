import { Table, Text } from '@mantine/core';
import { useSystem } from '../../api/system';
import { TableHead } from '../../kit/table-head';

/** The warm pools, read-only: what GET /v1/system says of them (a base's warm count is set on the Bases page). */
export function PoolsPanel() {
  const pools = useSystem().data?.pools;
  if (!pools) return null;
  if (pools.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No base keeps containers ready: every new box is made from scratch. Set a base&apos;s warm count on the Bases
        page.
      </Text>
    );
  return (
    <Table aria-label="Warm pools" maw={720}>
      <TableHead columns={['Base', 'Ready', 'Kept', 'Hits']} />
      <Table.Tbody>
        {pools.map((p) => (
          <Table.Tr key={p.base}>
            <Table.Th scope="row">{p.base}</Table.Th>
            <Table.Td>{p.ready}</Table.Td>
            <Table.Td>{p.size}</Table.Td>
            <Table.Td>{p.hits}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
