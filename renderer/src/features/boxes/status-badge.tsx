import { Badge, Loader, Tooltip } from '@mantine/core';
import type { Box, BoxStatus } from '../../../../shared/schemas/box';

const COLORS: Record<BoxStatus, string> = {
  creating: 'blue',
  running: 'green',
  stopping: 'yellow',
  stopped: 'gray',
  resuming: 'blue',
  deleting: 'orange',
  paused: 'indigo',
  error: 'red',
};

const TRANSITIONS = new Set<BoxStatus>(['creating', 'stopping', 'resuming', 'deleting']);

export function isTransitioning(status: BoxStatus): boolean {
  return TRANSITIONS.has(status);
}

export function StatusBadge({ box }: { box: Pick<Box, 'status' | 'status_reason'> }) {
  const badge = (
    <Badge
      color={COLORS[box.status]}
      variant="light"
      leftSection={isTransitioning(box.status) ? <Loader size={10} color={COLORS[box.status]} /> : undefined}
      data-status={box.status}
    >
      {box.status}
    </Badge>
  );
  return box.status_reason ? (
    <Tooltip label={box.status_reason} multiline w={320}>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}
