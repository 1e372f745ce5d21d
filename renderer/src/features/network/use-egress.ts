import { useQuery } from '@tanstack/react-query';
import { useClient } from '../../api/client-context';

/** A box's egress log: one query per box; box.egress and box.egress.denied events refetch it. */
export const egressKeys = {
  box: (project: string, box: string) => ['egress', project, box] as const,
};

export function useEgress(project: string, box: string) {
  const client = useClient();
  return useQuery({
    queryKey: egressKeys.box(project, box),
    queryFn: async () => (await client.boxEgress(project, box)).items,
    staleTime: Infinity,
  });
}
