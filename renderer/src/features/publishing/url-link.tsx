import { Anchor, Group } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconExternalLink } from '@tabler/icons-react';
import type { MouseEvent } from 'react';
import type { SignInLink } from '../../../../shared/schemas/publishing';

/** Asks the core for a one-time link that signs a browser in to one URL (auth "token"). */
export type SignIn = () => Promise<SignInLink>;

/**
 * A preview URL as a link that opens in the system browser (in Electron the
 * window's open handler hands http(s) links to the shell; served, a new tab).
 * With `signIn` (the URL asks for a token), a click opens a one-time link from
 * the core instead, so the browser is signed in and no token is in any URL.
 */
export function UrlLink({ url, signIn }: { url: string; signIn?: SignIn | undefined }) {
  const open = useOpenPublished();
  return (
    <Anchor
      href={url}
      target="_blank"
      rel="noopener"
      fw={500}
      style={{ wordBreak: 'break-all' }}
      aria-label={`Open ${url} in the browser`}
      onClick={signIn ? (event: MouseEvent) => open(event, signIn) : undefined}
    >
      <Group gap={4} wrap="nowrap" component="span">
        {url}
        <IconExternalLink size={16} aria-hidden />
      </Group>
    </Anchor>
  );
}

/**
 * A click on a link to a URL that asks for a token: instead of the plain URL (a 401 page),
 * the one-time link the core mints (`?boxdesk_code=…`, good once, for a minute, for this URL
 * only), which the proxy turns into its cookie before redirecting to the plain URL.
 */
export function useOpenPublished(): (event: MouseEvent, signIn: SignIn) => void {
  return (event, signIn) => {
    event.preventDefault();
    signIn().then(
      (link) => window.open(link.url, '_blank', 'noopener'),
      (err: unknown) =>
        notifications.show({
          color: 'red',
          title: 'Could not open the URL',
          message: err instanceof Error ? err.message : String(err),
          autoClose: 10_000,
        }),
    );
  };
}
