import type { PublishRequest } from '../../../../shared/schemas/publishing';
import { useClient } from '../../api/client-context';
import { useClientMutation } from '../../api/client-mutation';
import { upsertBoxes } from '../boxes/box-cache';
import type { SignIn } from './url-link';

/** Publishes a box (or changes what is published); the answer goes into the caches at once. */
export function usePublishBox(project: string) {
  return useClientMutation(
    (c, { name, body }: { name: string; body: PublishRequest }) => c.publishBox(project, name, body),
    (qc, box) => upsertBoxes(qc, [box]),
  );
}

/** Removes a box's URL and domains (it keeps its port). */
export function useUnpublishBox(project: string) {
  return useClientMutation(
    (c, name: string) => c.unpublishBox(project, name),
    (qc, box) => upsertBoxes(qc, [box]),
  );
}

/** A one-time link that opens the box's URL signed in (auth "token"); nothing to cache. */
export function useBoxSignIn(project: string, name: string): (port?: number) => ReturnType<SignIn> {
  const client = useClient();
  return (port) => client.createSignInLink(project, name, port);
}
