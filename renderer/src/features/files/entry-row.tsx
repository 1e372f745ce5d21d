import { ActionIcon, Anchor, Group, Table, Text } from '@mantine/core';
import { IconDownload, IconFile, IconFolder, IconLink, IconQuestionMark, IconTrash } from '@tabler/icons-react';
import type { FileStat } from '../../../../shared/schemas/files';
import { formatBytes } from '../../kit/format';
import { Time } from '../../kit/time';
import { baseName, modeString } from './box-paths';

const ICONS = { dir: IconFolder, file: IconFile, symlink: IconLink, other: IconQuestionMark };

/** One entry of a folder: open it (a symlink shows its target), its size, mode and time; download, delete. */
export function EntryRow({
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
      <Table.Td>{entry.type === 'file' ? formatBytes(entry.size) : ''}</Table.Td>
      <Table.Td ff="monospace">
        {entry.mode}{' '}
        <Text span c="dimmed" size="xs" ff="monospace">
          {modeString(entry.mode)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Time at={entry.mtime} />
      </Table.Td>
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
