import { Badge, Code, Group, Stack, Text } from '@mantine/core';
import type { Volume } from '../../../../shared/schemas/volumes';
import { formatBytes } from '../../kit/format';

/** The data held, and the size asked for with whether the store holds the volume to it. */
export function VolumeSize({ volume }: { volume: Volume }) {
  return (
    <Stack gap={2}>
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {formatBytes(volume.size_bytes)} used
      </Text>
      {volume.exclusive_bytes !== undefined && volume.exclusive_bytes !== null && (
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }} title="Blocks no snapshot or clone shares">
          deleting frees {formatBytes(volume.exclusive_bytes)}
        </Text>
      )}
      {volume.size_gb === null ? (
        <Text size="xs" c="dimmed">
          no size set
        </Text>
      ) : (
        <Group gap={4} wrap="nowrap">
          <Text size="xs" c="dimmed">
            of {volume.size_gb} GB
          </Text>
          <Badge
            size="xs"
            variant="light"
            color={volume.size_enforced ? 'green' : 'gray'}
            title={
              volume.size_enforced
                ? "Enforced by the store's quota: a write past this size fails inside the box"
                : 'Not enforced: the store here cannot cap this volume (quotas need a btrfs store), so the size is recorded only'
            }
          >
            {volume.size_enforced ? 'enforced' : 'not enforced'}
          </Badge>
        </Group>
      )}
    </Stack>
  );
}

/** Which boxes mount the volume, at which path, and read-only or not. */
export function VolumeMounts({ volume }: { volume: Volume }) {
  if (volume.mounts.length === 0)
    return (
      <Text size="sm" c="dimmed">
        not mounted
      </Text>
    );
  return (
    <Stack gap={2}>
      {volume.mounts.map((m) => (
        <Text key={m.box} size="sm">
          {m.box} at <Code>{m.path}</Code>
          {m.read_only ? ' (read-only)' : ''}
        </Text>
      ))}
    </Stack>
  );
}
