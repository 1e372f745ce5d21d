import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { BoxdeskClient } from '../../../../shared/client';
import type { Box, BoxCreate, BoxUpdate } from '../../../../shared/schemas/box';
import { useClient } from '../../api/client-context';
import { useEventQuery } from '../../api/client-query';
import { boxKeys, removeBoxes, upsertBoxes } from './box-cache';

const PAGE = 500;

/** Every box of a project, page by page (the API gives at most 500 at a time). */
async function listAll(client: BoxdeskClient, project: string): Promise<Box[]> {
  const items: Box[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listBoxes(project, { limit: PAGE, cursor });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  performance.mark('boxdesk:boxes-data');
  return items;
}

/** The project's boxes; kept current by the event stream (the boxes module's rules), never by polling. */
export function useBoxes(project: string) {
  return useEventQuery(boxKeys.list(project), (client) => listAll(client, project));
}

export function useBox(project: string, name: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useQuery({
    queryKey: boxKeys.detail(project, name),
    queryFn: () => client.getBox(project, name),
    staleTime: Infinity,
    initialData: () => qc.getQueryData<Box[]>(boxKeys.list(project))?.find((b) => b.name === name),
  });
}

/** A mutation whose answer is a box, put in the caches at once. */
function useBoxMutation<V>(request: (client: BoxdeskClient, vars: V) => Promise<Box>) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => request(client, vars),
    onSuccess: (box: Box) => upsertBoxes(qc, [box]),
  });
}

export function useCreateBox(project: string) {
  return useBoxMutation((client, body: BoxCreate) => client.createBox(project, body));
}

export function useUpdateBox(project: string) {
  return useBoxMutation((client, { name, body }: { name: string; body: BoxUpdate }) =>
    client.updateBox(project, name, body),
  );
}

export type BoxAction = 'stop' | 'resume' | 'pause' | 'delete';

/** Runs one action on one box and puts the answer in the caches. */
async function runBoxAction(
  client: BoxdeskClient,
  qc: QueryClient,
  project: string,
  name: string,
  action: BoxAction,
): Promise<void> {
  if (action === 'delete') {
    await client.deleteBox(project, name);
    removeBoxes(qc, [{ project, name }]);
    return;
  }
  const calls = { stop: 'stopBox', resume: 'resumeBox', pause: 'pauseBox' } as const;
  const box = await client[calls[action]](project, name);
  upsertBoxes(qc, [box]);
}

/** One action over several boxes, four at a time; resolves with the names that failed and why. */
export function useBoxAction(project: string) {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ names, action }: { names: string[]; action: BoxAction }) => {
      const failures: { name: string; error: unknown }[] = [];
      const queue = [...names];
      const worker = async () => {
        for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
          await runBoxAction(client, qc, project, name, action).catch((error: unknown) =>
            failures.push({ name, error }),
          );
        }
      };
      await Promise.all(Array.from({ length: Math.min(4, names.length) }, worker));
      return failures;
    },
  });
}
