import { Anchor, Checkbox, Group, Table, Text } from '@mantine/core';
import { IconPlayerPlay, IconPlayerStop, IconTerminal2 } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Box } from '../../../../shared/schemas/box';
import { paths } from '../../app/project';
import { formatTime } from '../../kit/format';
import { DeleteAction, IconAction } from '../../kit/icon-action';
import { PublishedMarker } from '../publishing/published-marker';
import { StatusBadge, isTransitioning } from './status-badge';

export const ROW_HEIGHT = 45;

export interface RowActions {
  onSelect(names: string[], on: boolean): void;
  onStop(name: string): void;
  onResume(name: string): void;
  onDelete(name: string): void;
}

/** Console, stop or resume, delete. */
function BoxRowActions({ project, box, actions }: { project: string; box: Box; actions: RowActions }) {
  const busy = isTransitioning(box.status);
  return (
    <Group gap={4} wrap="nowrap">
      <IconAction
        label={`Open a console in ${box.name}`}
        tip="Open a console"
        icon={IconTerminal2}
        to={paths.box(project, box.name, 'console')}
        disabled={box.status !== 'running' && box.status !== 'paused'}
      />
      {box.status === 'stopped' || box.status === 'paused' ? (
        <IconAction
          label={`Resume ${box.name}`}
          tip="Resume"
          icon={IconPlayerPlay}
          color="green"
          onClick={() => actions.onResume(box.name)}
        />
      ) : (
        <IconAction
          label={`Stop ${box.name}`}
          tip="Stop"
          icon={IconPlayerStop}
          color="yellow"
          disabled={busy || box.status === 'error'}
          onClick={() => actions.onStop(box.name)}
        />
      )}
      <DeleteAction
        label={`Delete ${box.name}`}
        tip="Delete"
        disabled={box.status === 'deleting'}
        onClick={() => actions.onDelete(box.name)}
      />
    </Group>
  );
}

/** One box in the list: select, open, its status and URL, console, stop or resume, delete. */
export function BoxRow({
  project,
  box,
  index,
  selected,
  actions,
  showRegion,
}: {
  project: string;
  box: Box;
  index: number;
  selected: boolean;
  actions: RowActions;
  /** Whether the list has a region column (the core drives more than one engine). */
  showRegion: boolean;
}) {
  return (
    <Table.Tr
      aria-rowindex={index + 2}
      style={{ height: ROW_HEIGHT }}
      className={selected ? 'box-row-selected' : undefined}
    >
      <Table.Td>
        <Checkbox
          aria-label={`Select ${box.name}`}
          checked={selected}
          onChange={(e) => actions.onSelect([box.name], e.currentTarget.checked)}
        />
      </Table.Td>
      <Table.Th scope="row" fw={500}>
        <Anchor component={Link} to={paths.box(project, box.name)} truncate="end">
          {box.name}
        </Anchor>
      </Table.Th>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <StatusBadge box={box} />
          <PublishedMarker box={box} />
        </Group>
      </Table.Td>
      <Table.Td>
        <Text size="sm" truncate="end">
          {box.base ?? '—'}
        </Text>
      </Table.Td>
      {showRegion && (
        <Table.Td>
          <Text size="sm" truncate="end">
            {box.config.region}
          </Text>
        </Table.Td>
      )}
      <Table.Td>
        <Text size="sm" c="dimmed" truncate="end">
          {Object.entries(box.tags)
            .map(([k, v]) => `${k}:${v}`)
            .join(' ')}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" component="time" dateTime={box.created_at}>
          {formatTime(box.created_at)}
        </Text>
      </Table.Td>
      <Table.Td>
        <BoxRowActions project={project} box={box} actions={actions} />
      </Table.Td>
    </Table.Tr>
  );
}
