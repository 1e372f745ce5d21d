import { Button, Group, Paper, Text } from '@mantine/core';
import type { useBoxActions } from './use-box-actions';

/** What to do with the ticked boxes: stop, resume or delete them together. */
export function BulkBar({
  names,
  actions,
  onClear,
}: {
  names: string[];
  actions: ReturnType<typeof useBoxActions>;
  onClear(): void;
}) {
  if (names.length === 0) return null;
  const button = (label: string, onClick: () => void, danger = false) => (
    <Button
      size="xs"
      variant={danger ? 'light' : 'default'}
      color={danger ? 'red' : undefined}
      loading={actions.pending}
      onClick={onClick}
    >
      {label}
    </Button>
  );
  return (
    <Paper withBorder p="xs" role="toolbar" aria-label="Selected boxes">
      <Group gap="sm">
        <Text size="sm" fw={500}>
          {names.length} selected
        </Text>
        {button('Stop selected', () => void actions.stop(names))}
        {button('Resume selected', () => void actions.resume(names))}
        {button('Delete selected', () => actions.confirmDelete(names, onClear), true)}
        <Button size="xs" variant="subtle" onClick={onClear}>
          Clear selection
        </Button>
      </Group>
    </Paper>
  );
}
