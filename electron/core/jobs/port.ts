import type { ExecRequest } from '../../../shared/schemas/exec';
import type { JobStarted } from '../../../shared/schemas/jobs';

/** What exec asks of jobs: POST …/exec with background: true starts one. */
export interface JobsPort {
  start(project: string, name: string, req: ExecRequest): Promise<JobStarted>;
}
