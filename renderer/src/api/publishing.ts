import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PublishRequest } from '../../../shared/schemas/publishing';
import { upsertBoxes } from './box-cache';
import { useClient } from './client-context';

/** Publishes a box (or changes what is published); the answer goes into the caches at once. */
export function usePublishBox(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, body }: { name: string; body: PublishRequest }) => client.publishBox(project, name, body),
    onSuccess: (box) => upsertBoxes(qc, [box]),
  });
}

/** Removes a box's URL and domains (it keeps its port). */
export function useUnpublishBox(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => client.unpublishBox(project, name),
    onSuccess: (box) => upsertBoxes(qc, [box]),
  });
}
