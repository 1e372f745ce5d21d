import { ActionIcon, Anchor, Checkbox, Group, Table, Text, Tooltip } from '@mantine/core';
import { IconPlayerPlay, IconPlayerStop, IconTerminal2, IconTrash } from '@tabler/icons-react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef } from 'react';
import { Link } from 'react-router';
import type { Box } from '../../../../shared/schemas/box';
import { paths } from '../../app/project';
import { PublishedMarker } from '../publishing/published-marker';
import { StatusBadge, isTransitioning } from './status-badge';

const ROW_HEIGHT = 45;

interface Props {
  project: string;
  boxes: Box[];
  selected: Set<string>;
  onSelect(names: string[], on: boolean): void;
  onStop(name: string): void;
  onResume(name: string): void;
  onDelete(name: string): void;
}

/** Marks when the rows of freshly loaded data are on screen (read by the bench). */
function usePaintMark(count: number) {
  const marked = useRef(false);
  useLayoutEffect(() => {
    if (marked.current || count === 0) return;
    marked.current = true;
    requestAnimationFrame(() => performance.mark('boxdesk:boxes-painted'));
  }, [count]);
}

/** The box list: only the rows in view are in the DOM, so 1,000 boxes scroll as smoothly as 10. */
export function BoxTable({ project, boxes, selected, onSelect, onStop, onResume, onDelete }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: boxes.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  usePaintMark(boxes.length);
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const allSelected = boxes.length > 0 && boxes.every((b) => selected.has(b.name));
  const someSelected = !allSelected && boxes.some((b) => selected.has(b.name));

  return (
    <div ref={scrollRef} style={{ height: 'calc(100vh - 230px)', minHeight: 240, overflow: 'auto' }} tabIndex={-1}>
      <Table
        stickyHeader
        highlightOnHover
        aria-label="Boxes"
        aria-rowcount={boxes.length + 1}
        layout="fixed"
        verticalSpacing={6}
      >
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>
            <Table.Th w={44}>
              <Checkbox
                aria-label="Select all boxes shown"
                checked={allSelected}
                indeterminate={someSelected}
                onChange={(e) =>
                  onSelect(
                    boxes.map((b) => b.name),
                    e.currentTarget.checked,
                  )
                }
              />
            </Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th w={150}>Status</Table.Th>
            <Table.Th w={140}>Base</Table.Th>
            <Table.Th>Tags</Table.Th>
            <Table.Th w={170}>Created</Table.Th>
            <Table.Th w={130}>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {padTop > 0 && <tr aria-hidden style={{ height: padTop }} />}
          {items.map((item) => {
            const box = boxes[item.index]!;
            const busy = isTransitioning(box.status);
            return (
              <Table.Tr
                key={box.name}
                aria-rowindex={item.index + 2}
                style={{ height: ROW_HEIGHT }}
                className={selected.has(box.name) ? 'box-row-selected' : undefined}
              >
                <Table.Td>
                  <Checkbox
                    aria-label={`Select ${box.name}`}
                    checked={selected.has(box.name)}
                    onChange={(e) => onSelect([box.name], e.currentTarget.checked)}
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
                <Table.Td>
                  <Text size="sm" c="dimmed" truncate="end">
                    {Object.entries(box.tags)
                      .map(([k, v]) => `${k}:${v}`)
                      .join(' ')}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" component="time" dateTime={box.created_at}>
                    {new Date(box.created_at).toLocaleString()}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Tooltip label="Open a console">
                      <ActionIcon
                        variant="subtle"
                        component={Link}
                        to={paths.box(project, box.name, 'console')}
                        aria-label={`Open a console in ${box.name}`}
                        disabled={box.status !== 'running'}
                      >
                        <IconTerminal2 size={18} />
                      </ActionIcon>
                    </Tooltip>
                    {box.status === 'stopped' ? (
                      <Tooltip label="Resume">
                        <ActionIcon
                          variant="subtle"
                          color="green"
                          aria-label={`Resume ${box.name}`}
                          onClick={() => onResume(box.name)}
                        >
                          <IconPlayerPlay size={18} />
                        </ActionIcon>
                      </Tooltip>
                    ) : (
                      <Tooltip label="Stop">
                        <ActionIcon
                          variant="subtle"
                          color="yellow"
                          aria-label={`Stop ${box.name}`}
                          disabled={busy || box.status === 'error'}
                          onClick={() => onStop(box.name)}
                        >
                          <IconPlayerStop size={18} />
                        </ActionIcon>
                      </Tooltip>
                    )}
                    <Tooltip label="Delete">
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete ${box.name}`}
                        disabled={box.status === 'deleting'}
                        onClick={() => onDelete(box.name)}
                      >
                        <IconTrash size={18} />
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
          {padBottom > 0 && <tr aria-hidden style={{ height: padBottom }} />}
        </Table.Tbody>
      </Table>
    </div>
  );
}
