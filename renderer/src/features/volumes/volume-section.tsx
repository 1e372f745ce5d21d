import { Button, Group, Stack, Table } from '@mantine/core';
import { IconCopy, IconRestore, type Icon } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { Volume } from '../../../../shared/schemas/volumes';
import { confirmDestroy } from '../../kit/confirm-destroy';
import { DeleteAction, IconAction } from '../../kit/icon-action';
import { QueryStates, type QueryLike } from '../../kit/query-states';
import { TableHead } from '../../kit/table-head';
import { Time } from '../../kit/time';
import { TitleBar } from '../../kit/title-bar';
import type { ClonePreset } from './volume-form';

export type RestoreSource = { snapshot_id: string } | { backup_id: string };

/** What a drawer section can ask of the drawer. */
export interface SectionProps {
  volume: Volume;
  onRestore(source: RestoreSource, what: string): void;
  onClone(preset: ClonePreset): void;
  onFailure(title: string, error: unknown): void;
}

/** A copy's actions: restore the volume from it, clone it into a new volume. */
export function CopyActions({
  kind,
  id,
  volume,
  onRestore,
  onClone,
}: Pick<SectionProps, 'volume' | 'onRestore' | 'onClone'> & { kind: 'snapshot' | 'backup'; id: string }) {
  return (
    <>
      <IconAction
        label={`Restore ${volume.name} from ${kind} ${id}`}
        tip={`Restore the volume from this ${kind}`}
        icon={IconRestore}
        onClick={() => onRestore(kind === 'snapshot' ? { snapshot_id: id } : { backup_id: id }, `${kind} ${id}`)}
      />
      <IconAction
        label={`Clone ${kind} ${id} into a new volume`}
        tip="Clone into a new volume"
        icon={IconCopy}
        onClick={() => onClone({ kind, id, volume: volume.name })}
      />
    </>
  );
}

/**
 * A copy's row: when it was taken (the row named by its id), its own cells, then its actions and its
 * delete (not while the copy is still being written).
 */
export function CopyRow({
  kind,
  copy,
  writing = false,
  actions,
  onDelete,
  children,
}: {
  kind: 'snapshot' | 'backup';
  copy: { id: string; created_at: string };
  writing?: boolean;
  actions: ReactNode;
  onDelete(): void;
  children: ReactNode;
}) {
  return (
    <Table.Tr>
      <Table.Th scope="row" fw="normal" aria-label={copy.id} style={{ whiteSpace: 'nowrap' }}>
        <Time at={copy.created_at} />
      </Table.Th>
      {children}
      <Table.Td>
        <Group gap={2} wrap="nowrap" justify="flex-end">
          {actions}
          <DeleteAction
            label={`Delete ${kind} ${copy.id}`}
            tip={writing ? 'It can go once written' : 'Delete'}
            disabled={writing}
            onClick={onDelete}
          />
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Asks before a copy goes ("Delete snapshot vsnap_…?"), saying what goes and what the volume keeps. */
export function confirmDeleteCopy(
  kind: 'snapshot' | 'backup',
  id: string,
  words: { goes: string; affects: string },
  remove: (id: string) => Promise<unknown>,
): void {
  confirmDestroy({ title: `Delete ${kind} ${id}?`, ...words, confirm: `Delete ${kind}`, run: () => remove(id) });
}

/** A section of a volume's drawer: its title and button, a note, then a table of copies (or why there is none). */
export function VolumeSection<T>({
  title,
  button,
  note,
  query,
  empty,
  table,
  children,
}: {
  title: 'Snapshots' | 'Backups';
  button: { label: string; icon: Icon; loading: boolean; onClick(): void };
  note?: ReactNode;
  query: QueryLike<T[]>;
  empty: string;
  table: { label: string; columns: string[] };
  children(item: T): ReactNode;
}) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <TitleBar order={3} title={title}>
        <Button
          size="xs"
          variant="default"
          leftSection={<button.icon size={14} />}
          loading={button.loading}
          onClick={button.onClick}
        >
          {button.label}
        </Button>
      </TitleBar>
      {note}
      <QueryStates query={query} what={`the ${title.toLowerCase()}`} empty={empty}>
        {(list) => (
          <Table aria-label={table.label} striped>
            <TableHead columns={table.columns} actions />
            <Table.Tbody>{list.map(children)}</Table.Tbody>
          </Table>
        )}
      </QueryStates>
    </Stack>
  );
}
