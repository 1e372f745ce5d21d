import { useQuery, type QueryKey } from '@tanstack/react-query';
import type { BoxdeskClient } from '../../../shared/client';
import { useClient } from './client-context';

/**
 * A query through the window's one client whose data the event stream keeps current (a module's event
 * rules patch or refetch `queryKey`): never stale by age, never polled.
 */
export function useEventQuery<T>(queryKey: QueryKey, request: (client: BoxdeskClient) => Promise<T>, enabled = true) {
  const client = useClient();
  return useQuery({ queryKey, queryFn: () => request(client), staleTime: Infinity, enabled });
}
