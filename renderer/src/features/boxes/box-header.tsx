import { Alert, Button, Group, Text, Title } from '@mantine/core';
import { IconEdit, IconPlayerPause, IconPlayerPlay, IconPlayerStop, IconTrash } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';
import { NextChange } from './next-change';
import { StatusBadge, isTransitioning } from './status-badge';
import type { useBoxActions } from './use-box-actions';

/** A box's name and status, what can be done with it, and why it failed if it did. */
export function BoxHeader({
  box,
  actions,
  onEdit,
  onDeleted,
}: {
  box: Box;
  actions: ReturnType<typeof useBoxActions>;
  onEdit(): void;
  onDeleted(): void;
}) {
  const busy = isTransitioning(box.status);
  return (
    <>
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2}>{box.name}</Title>
          <StatusBadge box={box} />
        </Group>
        <Group gap="xs">
          {box.status === 'running' && (
            <Button
              variant="default"
              leftSection={<IconPlayerPause size={16} />}
              onClick={() => void actions.pause([box.name])}
              loading={actions.pending}
            >
              Pause
            </Button>
          )}
          {box.status === 'stopped' || box.status === 'paused' ? (
            <Button
              variant="default"
              leftSection={<IconPlayerPlay size={16} />}
              onClick={() => void actions.resume([box.name])}
              loading={actions.pending}
            >
              {box.status === 'paused' ? 'Wake' : 'Resume'}
            </Button>
          ) : (
            <Button
              variant="default"
              leftSection={<IconPlayerStop size={16} />}
              onClick={() => void actions.stop([box.name])}
              disabled={busy || box.status === 'error'}
              loading={actions.pending}
            >
              Stop
            </Button>
          )}
          <Button variant="default" leftSection={<IconEdit size={16} />} onClick={onEdit} disabled={busy}>
            Edit
          </Button>
          <Button
            color="red"
            variant="light"
            leftSection={<IconTrash size={16} />}
            onClick={() => actions.confirmDelete([box.name], onDeleted)}
          >
            Delete
          </Button>
        </Group>
      </Group>
      <NextChange box={box} />
      {box.status === 'error' && box.status_reason && (
        <Alert color="red" title="This box failed" role="alert">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {box.status_reason}
          </Text>
          <Text size="sm" mt="xs">
            Delete it and create it again; its logs may say more.
          </Text>
        </Alert>
      )}
    </>
  );
}
