import { ActionIcon, Tooltip } from '@mantine/core';
import { IconWorld } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';
import { useOpenPublished } from './url-link';
import { useBoxSignIn } from './use-publishing';

/** A globe on a published box's row: a link to its URL (signed in, for auth "token"), named "published at URL". */
export function PublishedMarker({ box }: { box: Box }) {
  const open = useOpenPublished();
  const signIn = useBoxSignIn(box.project, box.name);
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
        onClick={box.url_settings?.auth === 'token' ? (event) => open(event, signIn) : undefined}
      >
        <IconWorld size={16} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}
