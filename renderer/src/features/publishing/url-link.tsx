import { Anchor, Group } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import { useApi } from '../../api/client-context';

/**
 * A preview URL as a link that opens in the system browser (in Electron the
 * window's open handler hands http(s) links to the shell; served, a new tab).
 */
export function UrlLink({ url }: { url: string }) {
  return (
    <Anchor
      href={url}
      target="_blank"
      rel="noopener"
      fw={500}
      style={{ wordBreak: 'break-all' }}
      aria-label={`Open ${url} in the browser`}
    >
      <Group gap={4} wrap="nowrap" component="span">
        {url}
        <IconExternalLink size={16} aria-hidden />
      </Group>
    </Anchor>
  );
}

/**
 * Opens a URL that asks for a token with this window's token once (`?token=`).
 * Only on this click does the session token leave the window: the proxy turns
 * it into a cookie for this preview and redirects to the URL without it.
 */
export function useOpenWithSignIn(): (url: string) => void {
  const { token } = useApi();
  return (url) => {
    const target = new URL(url);
    target.searchParams.set('token', token);
    window.open(target.toString(), '_blank', 'noopener');
  };
}
