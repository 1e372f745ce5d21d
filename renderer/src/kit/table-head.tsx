import { Table, VisuallyHidden } from '@mantine/core';

type Column = string | { label: string; w: number };

/** A table's header row; `actions` adds the last column, named for screen readers only. */
export function TableHead({ columns, actions = false }: { columns: Column[]; actions?: boolean | number }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((c) =>
          typeof c === 'string' ? (
            <Table.Th key={c}>{c}</Table.Th>
          ) : (
            <Table.Th key={c.label} w={c.w}>
              {c.label}
            </Table.Th>
          ),
        )}
        {actions !== false && (
          <Table.Th w={typeof actions === 'number' ? actions : undefined}>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        )}
      </Table.Tr>
    </Table.Thead>
  );
}
