import { useMutation, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import type { BoxdeskClient } from '../../../shared/client';
import { useClient } from './client-context';

/**
 * A mutation through the window's one client. `after` puts its answer in the
 * caches once it succeeded, or is the key of the queries it makes stale.
 */
export function useClientMutation<V, R>(
  request: (client: BoxdeskClient, vars: V) => Promise<R>,
  after?: QueryKey | ((qc: QueryClient, result: R, vars: V) => unknown),
) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => request(client, vars),
    onSuccess: (result: R, vars: V) =>
      typeof after === 'function' ? after(qc, result, vars) : after && qc.invalidateQueries({ queryKey: after }),
  });
}
