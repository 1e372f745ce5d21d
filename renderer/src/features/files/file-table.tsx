import { Button, Table, Text } from '@mantine/core';
import type { FileStat } from '../../../../shared/schemas/files';
import { QueryStates } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { EntryRow } from './entry-row';
import type { useFileList } from './use-files';

/** A page of a folder's entries; a folder that cannot be listed says why, with a retry and a way up. */
export function FileTable({
  dir,
  list,
  page,
  onUp,
  onOpen,
  onDownload,
  onDelete,
}: {
  dir: string;
  list: ReturnType<typeof useFileList>;
  page(entries: FileStat[]): FileStat[];
  onUp(): void;
  onOpen(path: string): void;
  onDownload(e: FileStat): void;
  onDelete(e: FileStat): void;
}) {
  const up = dir !== '/' && (
    <Button size="xs" variant="default" onClick={onUp}>
      Go up
    </Button>
  );
  return (
    <QueryStates
      query={list}
      what={dir}
      loading={`Listing ${dir}…`}
      failed={{ title: `Cannot list ${dir}`, actions: up }}
    >
      {(entries) => (
        <Table highlightOnHover stickyHeader aria-label={`Files in ${dir}`} verticalSpacing={4} fz="sm">
          <TableHead
            columns={['Name', { label: 'Size', w: 90 }, { label: 'Mode', w: 150 }, { label: 'Modified', w: 190 }]}
            actions={80}
          />
          <Table.Tbody>
            {page(entries).map((entry) => (
              <EntryRow key={entry.path} entry={entry} onOpen={onOpen} onDownload={onDownload} onDelete={onDelete} />
            ))}
            {entries.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={5}>
                  <Text c="dimmed" size="sm" ta="center" py="md">
                    This folder is empty. Drop files here, or use Upload files.
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      )}
    </QueryStates>
  );
}
