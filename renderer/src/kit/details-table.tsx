import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

export type DetailRow = [label: string, value: ReactNode];

/** A record's details: one row a value, its label the row's header. */
export function DetailsTable({ rows, ...table }: TableProps & { 'aria-label': string; rows: DetailRow[] }) {
  return (
    <Table variant="vertical" layout="fixed" {...table}>
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th w={180} scope="row">
              {k}
            </Table.Th>
            <Table.Td>{v}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
