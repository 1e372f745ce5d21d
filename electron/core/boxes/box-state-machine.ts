import { ApiError } from '../../../shared/errors';
import type { BoxStatus } from '../../../shared/schemas/box';

export type BoxOperation = 'stop' | 'resume' | 'delete' | 'update' | 'exec' | 'logs' | 'files';

/** Statuses in which a box is mid-transition: every operation on it is refused. */
const TRANSIENT: BoxStatus[] = ['creating', 'stopping', 'resuming', 'deleting'];

const ALLOWED: Record<BoxOperation, BoxStatus[]> = {
  stop: ['running', 'stopped'],
  resume: ['stopped', 'running'],
  delete: ['running', 'stopped', 'error'],
  update: ['running', 'stopped', 'error'],
  exec: ['running'],
  logs: ['running', 'stopped', 'error'],
  files: ['running', 'stopped', 'error'],
};

/** Throws 409 when `op` is not allowed from `status`, naming what would be. */
export function assertTransition(name: string, status: BoxStatus, op: BoxOperation): void {
  if (ALLOWED[op].includes(status)) return;
  const why = TRANSIENT.includes(status)
    ? `box "${name}" is ${status}; wait until it settles`
    : op === 'exec'
      ? `box "${name}" is ${status}; resume it first`
      : `cannot ${op} box "${name}" while it is ${status}`;
  throw new ApiError('conflict', why);
}
