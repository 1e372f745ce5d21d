import { Alert, Button, Group, Table, Text } from '@mantine/core';
import type { FileStat } from '../../../../shared/schemas/files';
import { describeError } from '../../api/session';
import { TableHead } from '../../kit/table-head';
import { EntryRow } from './entry-row';
import type { useFileList } from './use-files';

/** A page of a folder's entries; a folder that cannot be listed says why, with a retry and a way up. */
export function FileTable({
  dir,
  list,
  shown,
  onUp,
  onOpen,
  onDownload,
  onDelete,
}: {
  dir: string;
  list: ReturnType<typeof useFileList>;
  shown: FileStat[];
  onUp(): void;
  onOpen(path: string): void;
  onDownload(e: FileStat): void;
  onDelete(e: FileStat): void;
}) {
  if (list.isError)
    return (
      <Alert color="red" title={`Cannot list ${dir}`} role="alert" m="sm">
        <Text size="sm">{describeError(list.error)}</Text>
        <Group mt="xs" gap="xs">
          <Button size="xs" variant="light" onClick={() => void list.refetch()}>
            Try again
          </Button>
          {dir !== '/' && (
            <Button size="xs" variant="default" onClick={onUp}>
              Go up
            </Button>
          )}
        </Group>
      </Alert>
    );
  return (
    <>
      <Table
        highlightOnHover
        stickyHeader
        aria-label={`Files in ${dir}`}
        aria-busy={list.isPending}
        verticalSpacing={4}
        fz="sm"
      >
        <TableHead
          columns={['Name', { label: 'Size', w: 90 }, { label: 'Mode', w: 150 }, { label: 'Modified', w: 190 }]}
          actions={80}
        />
        <Table.Tbody>
          {shown.map((entry) => (
            <EntryRow key={entry.path} entry={entry} onOpen={onOpen} onDownload={onDownload} onDelete={onDelete} />
          ))}
          {!list.isPending && list.data?.length === 0 && (
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
      {list.isPending && (
        <Text role="status" size="sm" c="dimmed" p="sm">
          Listing {dir}…
        </Text>
      )}
    </>
  );
}
