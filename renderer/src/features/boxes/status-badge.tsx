import { Badge, Loader, Tooltip } from '@mantine/core';
import { IconMoonStars } from '@tabler/icons-react';
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

/** A paused box is asleep, not down: it wakes by itself on the next use. */
const ASLEEP =
  'Asleep: its processes are frozen (no CPU, memory kept). A console, exec, files or a request to its URL wakes it.';

function leftSection(status: BoxStatus) {
  if (isTransitioning(status)) return <Loader size={10} color={COLORS[status]} />;
  if (status === 'paused') return <IconMoonStars size={12} aria-hidden />;
  return undefined;
}

export function StatusBadge({ box }: { box: Pick<Box, 'status' | 'status_reason'> }) {
  const badge = (
    <Badge color={COLORS[box.status]} variant="light" leftSection={leftSection(box.status)} data-status={box.status}>
      {box.status === 'paused' ? 'paused · wakes on use' : box.status}
    </Badge>
  );
  const tip = box.status === 'paused' ? [ASLEEP, box.status_reason].filter(Boolean).join(' ') : box.status_reason;
  return tip ? (
    <Tooltip label={tip} multiline w={320}>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}
