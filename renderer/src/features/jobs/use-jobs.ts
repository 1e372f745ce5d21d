import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Job } from '../../../../shared/schemas/jobs';
import { useClient } from '../../api/client-context';
import { useClientMutation } from '../../api/client-mutation';
import { readText } from '../../api/read-text';
import { describeError } from '../../api/session';

/** A box's jobs: one query per box; job.* events refetch it. */
export const jobKeys = {
  box: (project: string, box: string) => ['jobs', project, box] as const,
};

export function useJobs(project: string, box: string) {
  const client = useClient();
  return useQuery({
    queryKey: jobKeys.box(project, box),
    queryFn: async () => (await client.listJobs(project, box)).items,
    staleTime: Infinity,
  });
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

const MAX_OUTPUT_CHARS = 2 * 1024 * 1024;

/** A job's kept output of one stream, followed live until the job ends. */
export function useJobOutput(project: string, box: string, id: string | null, stream: 'stdout' | 'stderr') {
  const client = useClient();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  useEffect(() => {
    setText('');
    setError(null);
    if (!id) return;
    const abort = new AbortController();
    let buffer = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Chunks are shown at most every 100 ms; the buffer keeps the newest 2 MiB.
    const show = () => {
      timer = undefined;
      setText(buffer);
    };
    void (async () => {
      try {
        const res = await client.jobOutput(project, box, id, { stream, follow: true, signal: abort.signal });
        setLive(true);
        await readText(res.body as ReadableStream<Uint8Array>, (t) => {
          buffer += t;
          if (buffer.length > MAX_OUTPUT_CHARS) buffer = buffer.slice(buffer.length - MAX_OUTPUT_CHARS);
          timer ??= setTimeout(show, 100);
        });
        clearTimeout(timer);
        show();
      } catch (err) {
        if (!abort.signal.aborted) setError(describeError(err));
      } finally {
        if (!abort.signal.aborted) setLive(false);
      }
    })();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [client, project, box, id, stream]);
  return { text, error, live };
}
