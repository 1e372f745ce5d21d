import { Checkbox, Table } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef } from 'react';
import type { Box } from '../../../../shared/schemas/box';
import { useRegions } from '../../api/system';
import { BoxRow, ROW_HEIGHT, type RowActions } from './box-row';

interface Props extends RowActions {
  project: string;
  boxes: Box[];
  selected: Set<string>;
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

function Head({
  boxes,
  selected,
  onSelect,
  showRegion,
}: Pick<Props, 'boxes' | 'selected' | 'onSelect'> & { showRegion: boolean }) {
  const allSelected = boxes.length > 0 && boxes.every((b) => selected.has(b.name));
  const someSelected = !allSelected && boxes.some((b) => selected.has(b.name));
  return (
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
        {showRegion && <Table.Th w={110}>Region</Table.Th>}
        <Table.Th>Tags</Table.Th>
        <Table.Th w={170}>Created</Table.Th>
        <Table.Th w={130}>Actions</Table.Th>
      </Table.Tr>
    </Table.Thead>
  );
}

/** The box list: only the rows in view are in the DOM, so 1,000 boxes scroll as smoothly as 10. */
export function BoxTable({ project, boxes, selected, ...actions }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: boxes.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  usePaintMark(boxes.length);
  // A region column only where there is more than one region to tell apart.
  const showRegion = (useRegions().data?.items.length ?? 1) > 1;
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);

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
        <Head boxes={boxes} selected={selected} onSelect={actions.onSelect} showRegion={showRegion} />
        <Table.Tbody>
          {padTop > 0 && <tr aria-hidden style={{ height: padTop }} />}
          {items.map((item) => {
            const box = boxes[item.index]!;
            return (
              <BoxRow
                key={box.name}
                project={project}
                box={box}
                index={item.index}
                selected={selected.has(box.name)}
                actions={actions}
                showRegion={showRegion}
              />
            );
          })}
          {padBottom > 0 && <tr aria-hidden style={{ height: padBottom }} />}
        </Table.Tbody>
      </Table>
    </div>
  );
}
