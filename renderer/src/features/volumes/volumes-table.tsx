import { Anchor, Table } from '@mantine/core';
import type { Volume } from '../../../../shared/schemas/volumes';
import { DeleteAction } from '../../kit/icon-action';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';
import { VolumeMounts, VolumeSize } from './volume-format';

/** The project's volumes; a name opens the volume's drawer. */
export function VolumesTable({
  volumes,
  onOpen,
  onDelete,
}: {
  volumes: Volume[];
  onOpen(name: string): void;
  onDelete(volume: Volume): void;
}) {
  return (
    <Table aria-label="Volumes" striped verticalSpacing="xs">
      <TableHead columns={['Name', 'Size', 'Mounted by', 'Backups kept', 'Created']} actions />
      <Table.Tbody>
        {volumes.map((v) => (
          <Table.Tr key={v.name}>
            <Table.Th scope="row">
              <Anchor
                component="button"
                type="button"
                fw={600}
                onClick={() => onOpen(v.name)}
                aria-label={v.name}
                title={`Open ${v.name}: snapshots and backups`}
              >
                {v.name}
              </Anchor>
            </Table.Th>
            <Table.Td>
              <VolumeSize volume={v} />
            </Table.Td>
            <Table.Td>
              <VolumeMounts volume={v} />
            </Table.Td>
            <Table.Td>{v.backup_retention}</Table.Td>
            <Table.Td>
              <Time at={v.created_at} />
            </Table.Td>
            <Table.Td>
              <DeleteAction label={`Delete volume ${v.name}`} tip={`Delete ${v.name}`} onClick={() => onDelete(v)} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
