import { Code, Stack, Table } from '@mantine/core';
import { IconEdit, IconFileCode } from '@tabler/icons-react';
import { useState } from 'react';
import type { Base } from '../../../../shared/schemas/system';
import { confirmNamedDelete } from '../../kit/confirm-destroy';
import { CreateButton } from '../../kit/create-button';
import { formatBytes } from '../../kit/format';
import { DeleteAction, IconAction } from '../../kit/icon-action';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';
import { TitleBar } from '../../kit/title-bar';
import { BuildBaseDialog } from './build-base-dialog';
import { CreateBaseDialog } from './create-base-dialog';
import { EditBaseDialog } from './edit-base-dialog';
import { ImportBasePanel } from './import-base-panel';
import { useBases, useDeleteBase } from './use-bases';

/** Where a base's root comes from, in words. */
function sourceOf(base: Base) {
  if (base.from_snapshot)
    return (
      <>
        snapshot <Code>{base.from_snapshot}</Code>
      </>
    );
  // An imported tar or a build has no image name, only the engine's id.
  if (base.image.startsWith('sha256:'))
    return (
      <>
        built or imported <Code title={base.image}>{base.image.slice(0, 19)}</Code>
      </>
    );
  return <Code>{base.image}</Code>;
}

function BasesTable({
  bases,
  onEdit,
  onDelete,
}: {
  bases: Base[];
  onEdit(base: Base): void;
  onDelete(base: Base): void;
}) {
  return (
    <Table aria-label="Bases" striped maw={900}>
      <TableHead columns={['Name', 'Source', 'Size', 'Warm', 'Created']} actions />
      <Table.Tbody>
        {bases.map((base) => (
          <Table.Tr key={base.name}>
            <Table.Th scope="row">{base.name}</Table.Th>
            <Table.Td>{sourceOf(base)}</Table.Td>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatBytes(base.size_bytes)}</Table.Td>
            <Table.Td>{base.warm}</Table.Td>
            <Table.Td>
              <Time at={base.created_at} />
            </Table.Td>
            <Table.Td style={{ whiteSpace: 'nowrap' }}>
              <IconAction
                label={`Edit base ${base.name}`}
                tip={`Edit ${base.name}`}
                icon={IconEdit}
                onClick={() => onEdit(base)}
              />
              <DeleteAction
                label={`Delete base ${base.name}`}
                tip={`Delete ${base.name}`}
                onClick={() => onDelete(base)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The base templates boxes start from: list, create, import a tar, delete. */
export function BasesPage() {
  const bases = useBases();
  const remove = useDeleteBase();
  const [creating, setCreating] = useState(false);
  const [building, setBuilding] = useState(false);
  const [editing, setEditing] = useState<Base | null>(null);

  const confirmDelete = (base: Base) =>
    confirmNamedDelete('base', base.name, {
      goes: 'New boxes can no longer start from it. An image the core made for it (from a box or a tar) goes too; an image it only names stays in the engine.',
      affects: 'Boxes and snapshots that start from it keep it: the delete is refused while they exist.',
      run: () => remove.mutateAsync(base.name),
      gone: 'The base is gone.',
    });

  return (
    <Stack>
      <TitleBar title="Bases" maw={900}>
        <CreateButton icon={IconFileCode} label="New base from Dockerfile" onClick={() => setBuilding(true)} />
        <CreateButton label="Create base" onClick={() => setCreating(true)} />
      </TitleBar>
      <QueryStates
        query={bases}
        what="the bases"
        isEmpty={(d) => d.items.length === 0}
        empty="No bases yet. Create one from a snapshot, a box or an image, or import a root filesystem tar below."
      >
        {(d) => <BasesTable bases={d.items} onEdit={setEditing} onDelete={confirmDelete} />}
      </QueryStates>
      <ImportBasePanel />
      <CreateBaseDialog opened={creating} onClose={() => setCreating(false)} />
      <BuildBaseDialog opened={building} onClose={() => setBuilding(false)} />
      <EditBaseDialog base={editing} onClose={() => setEditing(null)} />
    </Stack>
  );
}
