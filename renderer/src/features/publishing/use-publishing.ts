import type { PublishRequest } from '../../../../shared/schemas/publishing';
import { useClientMutation } from '../../api/client-mutation';
import { upsertBoxes } from '../boxes/box-cache';

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
