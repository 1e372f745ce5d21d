import { ActionIcon, Alert, Button, Code, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconExternalLink, IconKey } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';
import { UrlLink, useOpenWithSignIn } from './url-link';

/** The box's URL as a link, a copy button, and what to do when the page does not load. */
export function PublishedUrl({ box }: { box: Box }) {
  const signIn = useOpenWithSignIn();
  const url = box.url!;
  return (
    <Stack gap="xs" component="section" aria-label="Published URL">
      <Group gap="xs" wrap="nowrap">
        <UrlLink url={url} />
        <CopyButton value={url}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy the URL'}>
              <ActionIcon
                variant="subtle"
                aria-label="Copy the URL"
                onClick={copy}
                color={copied ? 'green' : undefined}
              >
                {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
      {box.published_domains?.length ? (
        <Text size="sm" c="dimmed">
          Also at {box.published_domains.map((d) => `${d}:${new URL(url).port}`).join(', ')} (names other than
          *.localhost need a hosts-file entry for 127.0.0.1).
        </Text>
      ) : null}
      {box.url_settings?.auth === 'token' && (
        <Alert color="blue" icon={<IconKey size={18} />} title="The browser needs a token once">
          <Text size="sm">
            This URL asks for a token with read access to {box.project}. “Open with sign-in” adds this window’s token to
            the address once (<Code>?token=…</Code>); the proxy keeps it as a cookie for this preview only and drops it
            from the address. The plain link above shows a 401 page until then.
          </Text>
          <Button
            mt="xs"
            size="xs"
            variant="light"
            leftSection={<IconExternalLink size={14} />}
            onClick={() => signIn(url)}
          >
            Open with sign-in
          </Button>
        </Alert>
      )}
      <Text size="sm" c="dimmed">
        A “502” page means nothing answered: the box must be running, and your server must listen on{' '}
        <Code>0.0.0.0:{box.port}</Code> inside the box (vite:{' '}
        <Code style={{ whiteSpace: 'nowrap' }}>--host 0.0.0.0</Code>). A server on 127.0.0.1 only is reached through a
        relay when the box has <Code>nc</Code> or <Code>socat</Code>; without them the 502 page says what to change.
      </Text>
    </Stack>
  );
}
