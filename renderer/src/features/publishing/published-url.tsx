import { ActionIcon, Alert, Code, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy, IconKey } from '@tabler/icons-react';
import type { Box } from '../../../../shared/schemas/box';
import { UrlLink } from './url-link';
import { useBoxSignIn } from './use-publishing';

/** The box's URL as a link, a copy button, and what to do when the page does not load. */
export function PublishedUrl({ box }: { box: Box }) {
  const signIn = useBoxSignIn(box.project, box.name);
  const url = box.url!;
  const needsToken = box.url_settings?.auth === 'token';
  return (
    <Stack gap="xs" component="section" aria-label="Published URL">
      <Group gap="xs" wrap="nowrap">
        <UrlLink url={url} signIn={needsToken ? () => signIn() : undefined} />
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
      {box.port_urls?.map((p) => (
        <Group gap="xs" key={p.port} wrap="nowrap">
          <Text size="sm">port {p.port}:</Text>
          <UrlLink url={p.url} signIn={needsToken ? () => signIn(p.port) : undefined} />
        </Group>
      ))}
      {box.published_domains?.length ? (
        <Text size="sm" c="dimmed">
          Also at {box.published_domains.map((d) => `${d}:${new URL(url).port}`).join(', ')} (names other than
          *.localhost need a hosts-file entry for 127.0.0.1).
        </Text>
      ) : null}
      {needsToken && (
        <Alert color="blue" icon={<IconKey size={18} />} title="Opening it signs the browser in">
          <Text size="sm">
            This URL asks for a token with read access to {box.project}. The link above opens it with a one-time code
            (good once, for a minute, for this box only) that the proxy turns into a cookie for this preview; no token
            is ever in the address. The copied URL shows a 401 page in a browser that has not been signed in: open it
            from here or with{' '}
            <Code>
              box open {box.name}
              {box.project === 'default' ? '' : ` --project ${box.project}`}
            </Code>
            .
          </Text>
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
