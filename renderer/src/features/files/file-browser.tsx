import { Group, Pagination, Text } from '@mantine/core';
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { FileStat } from '../../../../shared/schemas/files';
import { describeError } from '../../api/session';
import { notifyDone } from '../../app/notify';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { DropZone } from '../../kit/drop-zone';
import { formatBytes } from '../../kit/format';
import { baseName, joinPath, parentPath } from './box-paths';
import { FileTable } from './file-table';
import { FileToolbar } from './file-toolbar';
import { NewFolderDialog } from './new-folder-dialog';
import { UploadList, useUploads } from './uploads';
import { useFileList, useFileTransfers, useInvalidateFiles } from './use-files';

const PAGE = 200;

interface Props {
  project: string;
  name: string;
  dir: string;
  onNavigate(path: string): void;
  onOpen(path: string): void;
}

/** Pages of PAGE entries, when there is more than one. */
function Pager({ count, page, onChange }: { count: number; page: number; onChange(page: number): void }) {
  const pages = Math.max(1, Math.ceil(count / PAGE));
  if (pages <= 1) return null;
  return (
    <Group justify="space-between" mt="xs">
      <Text size="sm" c="dimmed">
        {count} entries; {PAGE} a page
      </Text>
      <Pagination
        total={pages}
        value={page}
        onChange={onChange}
        size="sm"
        getControlProps={(c) => ({
          'aria-label': c === 'next' ? 'Next page' : c === 'previous' ? 'Previous page' : c,
        })}
      />
    </Group>
  );
}

/** One folder of the box: breadcrumbs, a paged list of entries, uploads by picker or drop. */
export function FileBrowser({ project, name, dir, onNavigate, onOpen }: Props) {
  const list = useFileList(project, name, dir);
  const transfers = useFileTransfers(project, name);
  const invalidate = useInvalidateFiles(project, name);
  const uploads = useUploads(project, name);
  const [page, setPage] = useState(1);
  const [newFolder, setNewFolder] = useState(false);
  useEffect(() => setPage(1), [dir]);

  const entries = list.data ?? [];
  const up = () => dir !== '/' && onNavigate(parentPath(dir));
  const onKeyDown = (e: KeyboardEvent) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if ((e.key === 'Backspace' && !typing) || (e.key === 'ArrowUp' && e.altKey)) {
      e.preventDefault();
      up();
    }
  };
  const confirmDelete = (entry: FileStat) =>
    confirmDestroy({
      title: `Delete ${entry.path}?`,
      goes:
        entry.type === 'dir'
          ? 'The folder and everything in it are removed from the box.'
          : `The file is removed from the box (${formatBytes(entry.size)}).`,
      affects: 'This cannot be undone (a snapshot can keep a copy first).',
      confirm: 'Delete',
      run: () => transfers.remove(entry.path, entry.type === 'dir').finally(invalidate),
      onDone: () => notifyDone(`Deleted ${baseName(entry.path)}`, `${entry.path} is gone from ${name}.`),
    });
  const download = (entry: FileStat) =>
    void transfers
      .download(entry.path)
      .catch((err: unknown) => notifyDone(`Could not download ${entry.path}`, describeError(err), false));

  return (
    <div onKeyDown={onKeyDown}>
      <FileToolbar
        dir={dir}
        refreshing={list.isFetching}
        onNavigate={onNavigate}
        onUp={up}
        onRefresh={() => void list.refetch()}
        onNewFolder={() => setNewFolder(true)}
        onUpload={(files) => uploads.start(dir, files)}
      />
      <UploadList uploads={uploads} />
      <DropZone label={`Drop files here to upload them to ${dir}`} onFiles={(files) => uploads.start(dir, files)}>
        <FileTable
          dir={dir}
          list={list}
          page={(all) => all.slice((page - 1) * PAGE, page * PAGE)}
          onUp={up}
          onOpen={onOpen}
          onDownload={download}
          onDelete={confirmDelete}
        />
      </DropZone>
      <Text size="xs" c="dimmed" mt={4}>
        Drop files onto the list to upload them here. Enter opens the focused entry; Backspace or Alt+↑ goes up a
        folder.
      </Text>
      <Pager count={entries.length} page={page} onChange={setPage} />
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
