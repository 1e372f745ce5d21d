import { useEventQuery } from '../../api/client-query';

/** A box's egress log: one query per box; box.egress and box.egress.denied events refetch it. */
export const egressKeys = {
  box: (project: string, box: string) => ['egress', project, box] as const,
};

export function useEgress(project: string, box: string) {
  return useEventQuery(egressKeys.box(project, box), async (client) => (await client.boxEgress(project, box)).items);
}
