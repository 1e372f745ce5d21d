import type { ExecRequest } from '../schemas/exec';
import type { Job, JobList, JobStarted } from '../schemas/jobs';
import { type ClientConstructor, type FetchResponse, boxPath, enc, queryString } from './client-core';

/** Background commands in a box: started by exec with background: true, listed, read, killed, deleted. */
export function withJobs<B extends ClientConstructor>(Base: B) {
  return class JobCalls extends Base {
    startJob(project: string, name: string, body: Omit<ExecRequest, 'background'>): Promise<JobStarted> {
      return this.request('POST', boxPath(project, name, '/exec'), { ...body, background: true });
    }

    listJobs(project: string, name: string): Promise<JobList> {
      return this.request('GET', boxPath(project, name, '/jobs'));
    }

    getJob(project: string, name: string, id: string): Promise<Job> {
      return this.request('GET', boxPath(project, name, `/jobs/${enc(id)}`));
    }

    /** The output's bytes from `from`; with follow, streamed until the job ends. The x-boxdesk-output-offset header says where they start. */
    jobOutput(
      project: string,
      name: string,
      id: string,
      options: { stream?: 'stdout' | 'stderr'; from?: number; follow?: boolean; signal?: unknown } = {},
    ): Promise<FetchResponse> {
      const qs = queryString([
        ['stream', options.stream],
        ['from', options.from],
        ['follow', options.follow ? 'true' : undefined],
      ]);
      return this.raw(
        'GET',
        boxPath(project, name, `/jobs/${enc(id)}/output${qs}`),
        undefined,
        {
          accept: 'application/octet-stream',
        },
        options.signal,
      );
    }

    killJob(project: string, name: string, id: string): Promise<Job> {
      return this.request('POST', boxPath(project, name, `/jobs/${enc(id)}/kill`));
    }

    deleteJob(project: string, name: string, id: string): Promise<void> {
      return this.request('DELETE', boxPath(project, name, `/jobs/${enc(id)}`));
    }
  };
}
