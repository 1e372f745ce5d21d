import { useClient } from '../../api/client-context';
import { useStreamedText } from '../../api/use-streamed-text';

/** The box's main-process output: the last 1,000 lines, then (following) new lines as they come. */
export function useLogStream(project: string, name: string, follow: boolean) {
  const client = useClient();
  return useStreamedText((signal) => client.logs(project, name, { tail: 1000, follow, signal }), follow, [
    client,
    project,
    name,
    follow,
  ]);
}
