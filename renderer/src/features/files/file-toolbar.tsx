import { ActionIcon, Button, FileButton, Group, Tooltip } from '@mantine/core';
import { IconArrowUp, IconFolderPlus, IconRefresh, IconUpload } from '@tabler/icons-react';
import { PathCrumbs } from './path-crumbs';

/** Up a folder and the breadcrumbs; Refresh, New folder and the upload picker. */
export function FileToolbar({
  dir,
  refreshing,
  onNavigate,
  onUp,
  onRefresh,
  onNewFolder,
  onUpload,
}: {
  dir: string;
  refreshing: boolean;
  onNavigate(path: string): void;
  onUp(): void;
  onRefresh(): void;
  onNewFolder(): void;
  onUpload(files: File[]): void;
}) {
  return (
    <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
      <Group gap="xs">
        <Tooltip label="Up one folder (Backspace, Alt+↑)">
          <ActionIcon variant="default" size="lg" aria-label="Up one folder" onClick={onUp} disabled={dir === '/'}>
            <IconArrowUp size={16} />
          </ActionIcon>
        </Tooltip>
        <PathCrumbs path={dir} onNavigate={onNavigate} />
      </Group>
      <Group gap="xs">
        <Button variant="default" leftSection={<IconRefresh size={16} />} onClick={onRefresh} loading={refreshing}>
          Refresh
        </Button>
        <Button variant="default" leftSection={<IconFolderPlus size={16} />} onClick={onNewFolder}>
          New folder
        </Button>
        <FileButton multiple onChange={(files) => files.length && onUpload(files)}>
          {(props) => (
            <Button {...props} leftSection={<IconUpload size={16} />}>
              Upload files
            </Button>
          )}
        </FileButton>
      </Group>
    </Group>
  );
}
