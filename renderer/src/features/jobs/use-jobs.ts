import type { Job } from '../../../../shared/schemas/jobs';
import { useClient } from '../../api/client-context';
import { useEventQuery } from '../../api/client-query';
import { useClientMutation } from '../../api/client-mutation';
import { useStreamedText } from '../../api/use-streamed-text';

/** A box's jobs: one query per box; job.* events refetch it. */
export const jobKeys = {
  box: (project: string, box: string) => ['jobs', project, box] as const,
};

export function useJobs(project: string, box: string) {
  return useEventQuery(jobKeys.box(project, box), async (client) => (await client.listJobs(project, box)).items);
}

export function useStartJob(project: string, box: string) {
  return useClientMutation(
    (c, command: string) => c.startJob(project, box, { command: ['/bin/sh', '-c', command] }),
    jobKeys.box(project, box),
  );
}

export function useKillJob(project: string, box: string) {
  return useClientMutation((c, job: Job) => c.killJob(project, box, job.id), jobKeys.box(project, box));
}

export function useDeleteJob(project: string, box: string) {
  return useClientMutation((c, job: Job) => c.deleteJob(project, box, job.id), jobKeys.box(project, box));
}

/** A job's kept output of one stream, followed live until the job ends. */
export function useJobOutput(project: string, box: string, id: string | null, stream: 'stdout' | 'stderr') {
  const client = useClient();
  const open = id
    ? (signal: AbortSignal) => client.jobOutput(project, box, id, { stream, follow: true, signal })
    : null;
  return useStreamedText(open, true, [client, project, box, id, stream]);
}
