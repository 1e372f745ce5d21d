import {
  ActionIcon,
  Alert,
  Anchor,
  Button,
  FileButton,
  Group,
  Pagination,
  Paper,
  Table,
  Text,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import {
  IconArrowUp,
  IconDownload,
  IconFile,
  IconFolder,
  IconFolderPlus,
  IconLink,
  IconQuestionMark,
  IconRefresh,
  IconTrash,
  IconUpload,
} from '@tabler/icons-react';
import { useEffect, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { useFileList, useFileTransfers, useInvalidateFiles } from '../../api/files';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { baseName, formatSize, joinPath, modeString, parentPath } from './box-paths';
import { NewFolderDialog } from './new-folder-dialog';
import { PathCrumbs } from './path-crumbs';
import { UploadList, useUploads } from './uploads';

const PAGE = 200;
const ICONS = { dir: IconFolder, file: IconFile, symlink: IconLink, other: IconQuestionMark };

interface Props {
  project: string;
  name: string;
  dir: string;
  onNavigate(path: string): void;
  onOpen(path: string): void;
}

/** One folder of the box: breadcrumbs, a paged list of entries, uploads by picker or drop. */
export function FileBrowser({ project, name, dir, onNavigate, onOpen }: Props) {
  const list = useFileList(project, name, dir);
  const transfers = useFileTransfers(project, name);
  const invalidate = useInvalidateFiles(project, name);
  const uploads = useUploads(project, name);
  const [page, setPage] = useState(1);
  const [dragging, setDragging] = useState(false);
  const [newFolder, setNewFolder] = useState(false);
  useEffect(() => setPage(1), [dir]);

  const entries = list.data ?? [];
  const pages = Math.max(1, Math.ceil(entries.length / PAGE));
  const shown = entries.slice((page - 1) * PAGE, page * PAGE);
  const up = () => dir !== '/' && onNavigate(parentPath(dir));

  const onKeyDown = (e: KeyboardEvent) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if ((e.key === 'Backspace' && !typing) || (e.key === 'ArrowUp' && e.altKey)) {
      e.preventDefault();
      up();
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const files = [...e.dataTransfer.files];
    if (files.length) uploads.start(dir, files);
  };
  const confirmDelete = (entry: FileStat) =>
    modals.openConfirmModal({
      title: `Delete ${entry.path}?`,
      children: (
        <Text size="sm">
          {entry.type === 'dir'
            ? 'The folder and everything in it are removed from the box.'
            : 'The file is removed from the box.'}{' '}
          This cannot be undone (a snapshot can keep a copy first).
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        void transfers
          .remove(entry.path, entry.type === 'dir')
          .then(() => notifyDone(`Deleted ${baseName(entry.path)}`, `${entry.path} is gone from ${name}.`))
          .catch((err: unknown) => notifyDone(`Could not delete ${entry.path}`, describeError(err), false))
          .finally(invalidate),
    });
  const download = (entry: FileStat) =>
    void transfers
      .download(entry.path)
      .catch((err: unknown) => notifyDone(`Could not download ${entry.path}`, describeError(err), false));

  return (
    <div onKeyDown={onKeyDown}>
      <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
        <Group gap="xs">
          <Tooltip label="Up one folder (Backspace, Alt+↑)">
            <ActionIcon variant="default" size="lg" aria-label="Up one folder" onClick={up} disabled={dir === '/'}>
              <IconArrowUp size={16} />
            </ActionIcon>
          </Tooltip>
          <PathCrumbs path={dir} onNavigate={onNavigate} />
        </Group>
        <Group gap="xs">
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            onClick={() => void list.refetch()}
            loading={list.isFetching}
          >
            Refresh
          </Button>
          <Button variant="default" leftSection={<IconFolderPlus size={16} />} onClick={() => setNewFolder(true)}>
            New folder
          </Button>
          <FileButton multiple onChange={(files) => files.length && uploads.start(dir, files)}>
            {(props) => (
              <Button {...props} leftSection={<IconUpload size={16} />}>
                Upload files
              </Button>
            )}
          </FileButton>
        </Group>
      </Group>
      <UploadList uploads={uploads} />
      <Paper
        withBorder
        role="region"
        aria-label={`Drop files here to upload them to ${dir}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        style={dragging ? { outline: '2px dashed var(--mantine-primary-color-filled)', outlineOffset: -2 } : undefined}
      >
        {list.isError ? (
          <Alert color="red" title={`Cannot list ${dir}`} role="alert" m="sm">
            <Text size="sm">{describeError(list.error)}</Text>
            <Group mt="xs" gap="xs">
              <Button size="xs" variant="light" onClick={() => void list.refetch()}>
                Try again
              </Button>
              {dir !== '/' && (
                <Button size="xs" variant="default" onClick={up}>
                  Go up
                </Button>
              )}
            </Group>
          </Alert>
        ) : (
          <Table
            highlightOnHover
            stickyHeader
            aria-label={`Files in ${dir}`}
            aria-busy={list.isPending}
            verticalSpacing={4}
            fz="sm"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th w={90}>Size</Table.Th>
                <Table.Th w={150}>Mode</Table.Th>
                <Table.Th w={190}>Modified</Table.Th>
                <Table.Th w={80}>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((entry) => (
                <EntryRow
                  key={entry.path}
                  entry={entry}
                  onOpen={onOpen}
                  onDownload={download}
                  onDelete={confirmDelete}
                />
              ))}
              {!list.isPending && entries.length === 0 && (
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
        {list.isPending && (
          <Text role="status" size="sm" c="dimmed" p="sm">
            Listing {dir}…
          </Text>
        )}
      </Paper>
      <Text size="xs" c="dimmed" mt={4}>
        Drop files onto the list to upload them here. Enter opens the focused entry; Backspace or Alt+↑ goes up a
        folder.
      </Text>
      {pages > 1 && (
        <Group justify="space-between" mt="xs">
          <Text size="sm" c="dimmed">
            {entries.length} entries; {PAGE} a page
          </Text>
          <Pagination
            total={pages}
            value={page}
            onChange={setPage}
            size="sm"
            getControlProps={(c) => ({
              'aria-label': c === 'next' ? 'Next page' : c === 'previous' ? 'Previous page' : c,
            })}
          />
        </Group>
      )}
      <NewFolderDialog
        opened={newFolder}
        dir={dir}
        onClose={() => setNewFolder(false)}
        create={async (folder) => {
          await transfers.mkdir(joinPath(dir, folder));
          invalidate();
        }}
      />
    </div>
  );
}

function EntryRow({
  entry,
  onOpen,
  onDownload,
  onDelete,
}: {
  entry: FileStat;
  onOpen(path: string): void;
  onDownload(e: FileStat): void;
  onDelete(e: FileStat): void;
}) {
  const Icon = ICONS[entry.type];
  const label = baseName(entry.path);
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Icon size={16} aria-label={entry.type === 'dir' ? 'folder' : entry.type} style={{ flex: 'none' }} />
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={() => onOpen(entry.path)}
            ff="monospace"
            fw={entry.type === 'dir' ? 600 : undefined}
          >
            {label}
          </Anchor>
          {entry.link_target !== undefined && (
            <Text size="sm" c="dimmed" ff="monospace" truncate>
              → {entry.link_target}
            </Text>
          )}
        </Group>
      </Table.Td>
      <Table.Td>{entry.type === 'file' ? formatSize(entry.size) : ''}</Table.Td>
      <Table.Td ff="monospace">
        {entry.mode}{' '}
        <Text span c="dimmed" size="xs" ff="monospace">
          {modeString(entry.mode)}
        </Text>
      </Table.Td>
      <Table.Td>{new Date(entry.mtime).toLocaleString()}</Table.Td>
      <Table.Td>
        <Group gap={2} wrap="nowrap" justify="flex-end">
          {entry.type === 'file' && (
            <ActionIcon variant="subtle" aria-label={`Download ${label}`} onClick={() => onDownload(entry)}>
              <IconDownload size={16} />
            </ActionIcon>
          )}
          <ActionIcon variant="subtle" color="red" aria-label={`Delete ${label}`} onClick={() => onDelete(entry)}>
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
