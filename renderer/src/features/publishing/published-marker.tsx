import { ActionIcon, Tooltip } from '@mantine/core';
import { IconWorld } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';

/** A globe on a published box's row: a link to its URL, named "published at URL". */
export function PublishedMarker({ box }: { box: Box }) {
  if (!box.url) return null;
  const label = `published at ${box.url}`;
  return (
    <Tooltip label={label}>
      <ActionIcon
        component="a"
        href={box.url}
        target="_blank"
        rel="noopener"
        variant="subtle"
        color="teal"
        size="sm"
        aria-label={label}
      >
        <IconWorld size={16} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}
